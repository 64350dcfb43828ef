#!/usr/bin/env bash
# run.sh - goheap-bpf's read-only and least-privilege guarantees (make
# privilege-test), on the newest supported release:
#
#   helpers   the compiled BPF objects call only read-only helpers
#             (bpf_helpers.py, on BIN's directory's *.bpf.o)
#   strace    no backend writes to, traces or signals its target
#             (strace.py)
#   caps      as the nobody user on a root target, each backend works with
#             exactly its documented capabilities, and with any one of
#             them dropped fails with status 8 naming it:
#               iter, perf  CAP_BPF CAP_PERFMON CAP_SYS_PTRACE
#               procmem     CAP_SYS_PTRACE
#             (iter's goroutine walk as its heap walk)
#             and a Go library deleted after it was loaded (only
#             /proc/PID/map_files reaches it) takes CAP_DAC_READ_SEARCH
#             and CAP_CHECKPOINT_RESTORE as well; the profile taken
#             with the fewest has the mappings' build IDs root's has
#   set-id    a copy installed set-uid root refuses to run for nobody,
#             and one set-gid root for a caller of another group: 8,
#             saying why, before reading anything
#
# Work files go to build/privilege/.
#
#   tests/privilege/run.sh BIN      (needs root)
set -uo pipefail

NAME=privilege
. "$(dirname "$0")/../integration/lib.sh"
setup "$@"
out=$PWD/build/privilege
rm -rf "$out"
mkdir -p "$out"/strace
newest=${versions[$((${#versions[@]} - 1))]}
versions=("$newest")
build_targets exe c-shared
build_host
heapgen=$PWD/build/targets/$newest/exe/heapgen

fail=0
python3 -B tests/privilege/bpf_helpers.py "vmlinux/$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')/vmlinux.h" \
	"$(dirname "$bin")"/*.bpf.o || fail=1
python3 -B tests/privilege/strace.py "$bin" "$heapgen" "$out/strace" || fail=1

# A copy of BIN the nobody user can run, in a directory it can enter.
tmp=$(mktemp -d)
chmod 755 "$tmp"
cp "$bin" "$tmp/goheap-bpf"
chmod 755 "$tmp/goheap-bpf"
procs=()
trap 'for p in "${procs[@]}"; do { kill -9 "$p"; wait "$p"; } 2>/dev/null; done; rm -rf "$tmp"' EXIT

echo "privilege: kernel.perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)," \
	"kernel.unprivileged_bpf_disabled=$(cat /proc/sys/kernel/unprivileged_bpf_disabled)," \
	"kernel.yama.ptrace_scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo "absent (no Yama)")"

pass=0
verdict() {
	if [ -z "$2" ]; then
		pass=$((pass + 1))
	else
		fail=1
		echo "FAIL $1: $2"
	fi
}

# as_nobody NAME CAPS PID BACKEND: the copy as nobody with exactly CAPS
# (comma-separated, without CAP_; "" for none) in every set, reading the
# profile $PROFILE names (default heap); status in st.
as_nobody() {
	local set=-all
	[ -n "$2" ] && set=-all,$(sed -E 's/(^|,)/\1+/g' <<<"$2")
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps="$set" --ambient-caps="$set" \
		--bounding-set="$set" "$tmp/goheap-bpf" --pid "$3" --backend "$4" \
		--profile "${PROFILE:-heap}" --format pprof --output - >"$out/$1.pb.gz" 2>"$out/$1.err"
	st=$?
}

# The mappings' files and build IDs of a profile, as go tool pprof reads them.
build_ids() {
	"$hostgo" tool pprof -raw "$1" 2>/dev/null | sed -n '/^Mappings/,$p' |
		awk 'NF >= 4 && $3 !~ /^\[/ {print $3, $4}'
}

# same_build_ids NAME PID: the profile NAME took as nobody names the
# mapped files' build IDs root's does: /proc/PID/root reaches the files
# where /proc/PID/map_files (CAP_DAC_READ_SEARCH, CAP_CHECKPOINT_RESTORE)
# does not.
same_build_ids() {
	local ours theirs
	"$bin" --pid "$2" --backend iter --format pprof --output "$out/$1.root.pb.gz" \
		2>"$out/$1.root.err" || die "root's run on $2 failed: $(head -c 300 "$out/$1.root.err")"
	ours=$(build_ids "$out/$1.pb.gz")
	theirs=$(build_ids "$out/$1.root.pb.gz")
	verdict "$1-build-ids" "$([ -n "$theirs" ] && [ "$ours" = "$theirs" ] ||
		echo "mappings as nobody: ${ours:-none}; as root: $theirs")"
	echo "privilege: $1's build IDs as root's: $(wc -l <<<"$theirs") mapped files"
}

# minimal NAME PID BACKEND CAP...: works with exactly the CAPs, and with
# any one dropped fails with 8 and a message naming it.
minimal() {
	local name=$1 pid=$2 b=$3 c rest
	shift 3
	as_nobody "$name" "$(IFS=,; echo "$*")" "$pid" "$b"
	verdict "$name" "$([ $st -eq 0 ] || echo "exit $st with $*: $(head -c 300 "$out/$name.err")")"
	for c in "$@"; do
		rest=$(for x in "$@"; do [ "$x" = "$c" ] || echo "$x"; done | paste -sd,)
		as_nobody "$name-no-$c" "$rest" "$pid" "$b"
		if [ $st -ne 8 ]; then
			verdict "$name-no-$c" "exit $st, want 8: $(head -c 300 "$out/$name-no-$c.err")"
		else
			verdict "$name-no-$c" "$(grep -qi "missing.*cap_$c" "$out/$name-no-$c.err" ||
				echo "the message does not name CAP_${c^^}: $(head -c 300 "$out/$name-no-$c.err")")"
		fi
	done
	echo "privilege: $b on $name works with exactly: $(tr a-z A-Z <<<"$*" | sed 's/[^ ]*/CAP_&/g')"
}

# A root target running on a CPU (perf reads only a running target).
HEAPGEN_SPIN=1 HEAPGEN_RATE=4096 HEAPGEN_PROFILE="$out/own.pb.gz" HEAPGEN_READY="$out/ready" \
	"$heapgen" >/dev/null 2>&1 &
pid=$!
procs+=("$pid")
wait_file "$out/ready" "$pid" || die "heapgen did not get ready"
minimal heapgen-iter "$pid" iter bpf perfmon sys_ptrace
same_build_ids heapgen-iter "$pid"
minimal heapgen-perf "$pid" perf bpf perfmon sys_ptrace
minimal heapgen-procmem "$pid" procmem sys_ptrace
PROFILE=goroutine minimal heapgen-goroutine "$pid" iter bpf perfmon sys_ptrace

# A C host whose Go library was deleted once loaded.
cp "build/targets/$newest/c-shared/heapgen" "$tmp/libheapgen.so"
HEAPGEN_RATE=4096 "$host" "$out/host.ready" "$tmp/libheapgen.so" "$out/lib.pb.gz" "$out/lib.ready" \
	>"$out/host.log" 2>&1 &
pid=$!
procs+=("$pid")
wait_file "$out/host.ready" "$pid" || die "the C host did not get ready: $(tail -3 "$out/host.log")"
rm "$tmp/libheapgen.so"
minimal deleted-lib "$pid" procmem sys_ptrace dac_read_search checkpoint_restore

# set_id NAME MODE SETPRIV-ARGS...: the copy with MODE, run through
# setpriv with ARGS, must refuse.
set_id() {
	local name=$1
	chmod "$2" "$tmp/goheap-bpf"
	setpriv "${@:3}" "$tmp/goheap-bpf" --pid "$pid" --format pprof --output /dev/null \
		>/dev/null 2>"$out/$name.err"
	st=$?
	chmod 755 "$tmp/goheap-bpf"
	verdict "$name" "$([ $st -eq 8 ] && grep -q "refusing to run set-uid or set-gid" "$out/$name.err" ||
		echo "exit $st: $(head -c 300 "$out/$name.err")")"
	echo "privilege: $name: $st: $(head -c 100 "$out/$name.err")"
}
set_id setuid 4755 --reuid=65534 --regid=65534 --clear-groups
# As root with another real group: a sanitized build's leak checker cannot
# run in a set-gid process of an unprivileged user.
set_id setgid 2755 --regid=65534 --clear-groups

echo "privilege: $pass passed among the capability and set-id cases"
[ "$fail" -eq 0 ]
