# heapgen.sh - sourced by tests/library/run.sh and tests/abi/run.sh: start
# an idle heapgen (the newest Go toolchain's, every allocation sampled)
# whose profile is written to $tmp/own.pb.gz, and wait until it is ready.
# Sets pid; calls die (the caller's) when it cannot.
v=$(tools/go-toolchains.sh list | tail -1)
target=build/targets/$v/exe/heapgen
tests/targets/build.sh heapgen exe "$(tools/go-toolchains.sh goroot "$v")" "$target" >/dev/null ||
	die "building heapgen failed"
HEAPGEN_RATE=1 HEAPGEN_PROFILE=$tmp/own.pb.gz HEAPGEN_READY=$tmp/ready "$target" >/dev/null &
pid=$!
for _ in $(seq 300); do [ -e "$tmp/ready" ] && break; sleep 0.1; done
[ -e "$tmp/ready" ] || die "the target did not start"
