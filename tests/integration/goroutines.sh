#!/usr/bin/env bash
# goroutines.sh - the goroutine profile (--profile goroutine) against the
# target's own /debug/pprof/goroutine. tests/targets/goroutines parks
# goroutines in known states (channels, select, sleep, the sync types, a
# pipe read in a system call, a net.Conn read in netpoll, a nested one,
# labelled ones) and serves its own endpoint; goheap-bpf reads it first,
# then the target's own texts are fetched, and goroutinecmp.py compares
# them: debug=1 identical to the byte, debug=2 the same goroutine IDs and
# states, apart from the goroutine serving the request and the connection
# reader it started, which only the target's own texts can hold (they
# are taken out of theirs: goroutinecmp.py says exactly how). Every PC of
# every stack we print must be in a function of the binary, as
# `go tool addr2line` says. Every supported release, plain and PIE.
#
#   tests/integration/goroutines.sh BIN
#
# Environment: GO_VERSIONS="1.18.10 1.27.4" limits the releases. Needs
# root (another process's memory).
set -uo pipefail

NAME=goroutines
. "$(dirname "$0")/lib.sh"
setup "$@"
modes=(exe pie)
out=$PWD/build/integration/goroutines
mkdir -p "$out" build/targets
start=$(date +%s)

# The target built by every release in each mode, two at a time.
list=build/targets/$NAME.builds
: >"$list"
for v in "${versions[@]}"; do
	goroot=$(tools/go-toolchains.sh goroot "$v") || die "no Go $v toolchain"
	for m in "${modes[@]}"; do echo "$v $m $goroot" >>"$list"; done
done
# shellcheck disable=SC2016
xargs -P 2 -L 1 sh -c '
	dir=build/targets/$0/$1
	mkdir -p "$dir"
	tests/targets/build.sh goroutines "$1" "$2" "$dir/goroutines" >"$dir/goroutines.log" 2>&1 ||
		{ echo "goroutines: building with Go $0 ($1) failed:"; cat "$dir/goroutines.log"; exit 1; }
' <"$list" || die "target builds failed"

newest_go=$(tools/go-toolchains.sh goroot "$(tools/go-toolchains.sh list | tail -1)")/bin/go
target=
trap kill_target EXIT
trap 'exit 130' INT TERM

# every_pc_resolves GO EXE PID TEXT: each PC of TEXT's "@" lines, less the
# load bias, is in a function by go tool addr2line (PC-1: return PCs).
# The newest release's addr2line reads every release's binaries; 1.18's
# answers "?" for every address of a PIE.
every_pc_resolves() {
	local go=$1 exe=$2 pid=$3 text=$4 bias
	bias=$(python3 - "$pid" "$exe" <<'PY'
import subprocess, sys
pid, exe = sys.argv[1:3]
real = subprocess.run(["readlink", "-f", "/proc/%s/exe" % pid],
                      capture_output=True, text=True).stdout.strip()
start = None
for line in open("/proc/%s/maps" % pid):
    f = line.split()
    if len(f) >= 6 and f[5] == real and int(f[2], 16) == 0:
        start = int(f[0].split("-")[0], 16)
        break
hdr = subprocess.run(["readelf", "-lW", exe], capture_output=True,
                     text=True).stdout
vaddr = min(int(l.split()[2], 16) for l in hdr.splitlines()
            if l.strip().startswith("LOAD"))
print(start - vaddr)
PY
	) || return 1
	grep -o ' 0x[0-9a-f]*' <(grep '^[0-9]* @' "$text") | sort -u |
		while read -r pc; do printf '0x%x\n' $((pc - 1 - bias)); done >"$dir/pcs"
	"$go" tool addr2line "$exe" <"$dir/pcs" >"$dir/a2l" || return 1
	if awk 'NR % 2 == 1 && $0 == "?"' "$dir/a2l" | grep -q .; then
		echo "    a PC in no function: $(paste - - <"$dir/a2l" | grep -m1 '^?')"
		return 1
	fi
	echo "    addr2line: $(wc -l <"$dir/pcs") PCs, each in a function"
}

# run_case VERSION MODE: 0 when the texts agree; reasons on stdout.
run_case() {
	local v=$1 m=$2 ok=0 st port exe
	dir=$out/$v-$m
	exe=build/targets/$v/$m/goroutines
	rm -rf "$dir"
	mkdir -p "$dir"
	GOROUTINES_READY=$dir/ready "$exe" >"$dir/target.log" 2>&1 &
	target=$!
	if ! wait_file "$dir/ready" "$target"; then
		echo "    target not ready: $(tail -3 "$dir/target.log")"
		return 1
	fi
	port=$(cat "$dir/ready")
	for d in 1 2; do
		fmt=legacy
		[ $d = 2 ] && fmt=goroutines
		timeout 60 "$bin" --pid "$target" --profile goroutine --format $fmt \
			--output "$dir/ours$d.txt" -v 2>"$dir/ours$d.err"
		st=$?
		if [ $st -ne 0 ]; then
			echo "    --format $fmt: exit $st: $(head -c 400 "$dir/ours$d.err")"
			ok=1
		fi
	done
	for d in 1 2; do
		curl -sf -o "$dir/theirs$d.txt" "http://127.0.0.1:$port/debug/pprof/goroutine?debug=$d" ||
			{ echo "    the target's own debug=$d did not answer"; ok=1; }
	done
	if [ $ok -eq 0 ]; then
		for d in 1 2; do
			python3 tests/integration/goroutinecmp.py debug$d "$dir/theirs$d.txt" \
				"$dir/ours$d.txt" >"$dir/cmp$d.txt" 2>&1 || ok=1
			sed 's/^/    /' "$dir/cmp$d.txt" | head -40
		done
		sed 's/^goheap-bpf: /    /' "$dir/ours1.err"
		every_pc_resolves "$newest_go" "$exe" \
			"$target" "$dir/ours1.txt" || ok=1
	fi
	kill_target
	return $ok
}

pass=0 fail=0
for v in "${versions[@]}"; do
	for m in "${modes[@]}"; do
		t0=$(date +%s%N)
		run_case "$v" "$m" >"$out/report"
		st=$?
		ms=$((($(date +%s%N) - t0) / 1000000))
		if [ $st -eq 0 ]; then
			pass=$((pass + 1))
			echo "PASS go$v $m ($ms ms)"
		else
			fail=$((fail + 1))
			echo "FAIL go$v $m ($ms ms; files in $out/$v-$m)"
		fi
		cat "$out/report"
	done
done
echo "goroutines: $(($(date +%s) - start)) s"
echo "goroutines: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
