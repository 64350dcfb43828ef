#!/usr/bin/env bash
# watch.sh - `goheap-bpf watch` on a real Go program (tests/targets/grower,
# built by the newest release) that grows at one site (main.growSite) on
# SIGUSR1, in a cgroup v1 memory cgroup the test makes (256 MiB limit) and
# removes (and tools/bench/benchgen, for large writes cut by signals;
# tests/targets/leak, which leaks at one site and is steady at others,
# for the likely leaks; tests/targets/gogrow, which parks goroutines on a
# signal, for --goroutines-above).
# The scenarios, their checks and their figures are
# watchtest.py's; this script builds what it needs and runs it.
NAME=watch
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
setup "$@"

dir=build/integration/watch
rm -rf "$dir" && mkdir -p "$dir"
newest=$(tools/go-toolchains.sh list | tail -1)
goroot=$(tools/go-toolchains.sh goroot "$newest") || die "no Go $newest toolchain"
grower=build/targets/watch/grower
tests/targets/build.sh grower exe "$goroot" "$grower" >"$dir/build.log" 2>&1 ||
	{ cat "$dir/build.log"; die "building grower failed"; }
leak=build/targets/watch/leak
tests/targets/build.sh leak exe "$goroot" "$leak" >"$dir/build-leak.log" 2>&1 ||
	{ cat "$dir/build-leak.log"; die "building leak failed"; }
gogrow=build/targets/watch/gogrow
tests/targets/build.sh gogrow exe "$goroot" "$gogrow" >"$dir/build-gogrow.log" 2>&1 ||
	{ cat "$dir/build-gogrow.log"; die "building gogrow failed"; }
build_cmpprof "$PWD/$dir"
build_benchgen "$PWD/$dir"
[ -d /sys/fs/cgroup/memory ] || die "no cgroup v1 memory controller at /sys/fs/cgroup/memory"
PATH=$(dirname "$hostgo"):$PATH python3 tests/integration/watchtest.py \
	"$bin" "$PWD/$grower" "$benchgen" "$cmpprof" "$PWD/$dir" "$PWD/$leak" "$PWD/$gogrow"
