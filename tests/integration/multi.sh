#!/usr/bin/env bash
# multi.sh - several processes in one request: `--pid A,B,C` on three live
# targets built with three Go releases (exe, PIE, exe) must be read from
# one BPF load in one iterator pass (the -v summary says so), and give,
# per process, what three single runs give: the same pprof (cmpprof, and
# each equal to the target's own profile), the same top table and the
# same JSON document (the snapshot time and duration left out). A fourth
# process, a C host with two Go c-shared libraries, adds two runtimes of
# one TGID: the targets map is keyed by TGID, so they take a second pass,
# and each runtime must still equal its library's own profile.
#
#   tests/integration/multi.sh BIN      (needs root)
set -uo pipefail

NAME=multi
. "$(dirname "$0")/lib.sh"
setup "$@"
out=$PWD/build/multi
rm -rf "$out"
mkdir -p "$out"
dir=$out
read -r -a all <<<"$(tools/go-toolchains.sh list | tr '\n' ' ')"
n=${#all[@]}
# Three releases, oldest to newest, and their builds.
rel=("${all[1]}" "${all[$((n / 2))]}" "${all[$((n - 1))]}")
modes=(exe pie exe)

versions=("${rel[@]}")
build_targets exe pie
versions=("${rel[1]}" "${rel[2]}")
build_targets c-shared
host=build/targets/host/host
gcc -O2 -Wall -Wextra -Werror -o "$host" tests/targets/cshared/host.c -ldl -lpthread ||
	die "building the C host failed"
build_cmpprof "$out"

pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done' EXIT
for i in 0 1 2; do
	HEAPGEN_RATE=4096 HEAPGEN_PROFILE=$dir/own$i.pb.gz HEAPGEN_READY=$dir/own$i.ready \
		"build/targets/${rel[$i]}/${modes[$i]}/heapgen" >"$dir/target$i.log" 2>&1 &
	pids+=($!)
	wait_file "$dir/own$i.ready" "$!" || die "target $i not ready: $(tail -2 "$dir/target$i.log")"
done
a=$(realpath "build/targets/${rel[1]}/c-shared/heapgen")
b=$dir/libnext.so
cp "build/targets/${rel[2]}/c-shared/heapgen" "$b"
HEAPGEN_RATE=4096 "$host" "$dir/host.ready" "$a" "$dir/a.pb.gz" "$dir/a.ready" \
	"$b" "$dir/b.pb.gz" "$dir/b.ready" >"$dir/host.log" 2>&1 &
pids+=($!)
wait_file "$dir/host.ready" "$!" || die "host not ready: $(tail -2 "$dir/host.log")"

pass=0 fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }
# Time and duration change from one snapshot to the next.
steady() { grep -v '^Time: \|"duration_ms": ' "$1"; }

three="${pids[0]},${pids[1]},${pids[2]}"
timeout 120 "$bin" --pid "$three" -v --format pprof --output "$dir/multi.pb.gz" 2>"$dir/multi.err"
st=$?
summary=$(grep -E '^goheap-bpf: [0-9]+ process' "$dir/multi.err")
if [ $st -ne 0 ]; then
	bad one-pass "exit $st: $(grep -v libbpf "$dir/multi.err" | head -3)"
elif ! grep -q "3 processes examined (0 not Go), 3 results .*: 1 BPF load, 1 iterator pass, " <<<"$summary"; then
	bad one-pass "want 1 BPF load and 1 iterator pass: $summary"
else
	ok "one-pass ($summary)"
fi

for i in 0 1 2; do
	p=${pids[$i]}
	name="go${rel[$i]}-${modes[$i]}"
	timeout 120 "$bin" --pid "$p" --format pprof --output "$dir/single.$p.pb.gz" 2>"$dir/single.$p.err" ||
		{ bad "$name" "single run failed: $(head -c 300 "$dir/single.$p.err")"; continue; }
	if ! "$cmpprof" "$dir/own$i.pb.gz" "$dir/multi.pb.gz.$p" >"$dir/own$i.cmp" 2>&1; then
		bad "$name" "not the target's own profile: $(head -5 "$dir/own$i.cmp")"
	elif ! "$cmpprof" "$dir/single.$p.pb.gz" "$dir/multi.pb.gz.$p" >"$dir/single$i.cmp" 2>&1; then
		bad "$name" "not the single run's profile: $(head -5 "$dir/single$i.cmp")"
	else
		ok "$name pprof"
	fi
done

for f in top json; do
	timeout 120 "$bin" --pid "$three" --format "$f" >"$dir/multi.$f" 2>"$dir/multi.$f.err" ||
		{ bad "$f" "exit $?: $(head -c 300 "$dir/multi.$f.err")"; continue; }
	: >"$dir/singles.$f"
	for i in 0 1 2; do
		timeout 120 "$bin" --pid "${pids[$i]}" --format "$f" >>"$dir/singles.$f" 2>/dev/null
	done
	if cmp -s <(steady "$dir/multi.$f") <(steady "$dir/singles.$f"); then
		ok "$f ($(wc -l <"$dir/multi.$f") lines, as three single runs)"
	else
		bad "$f" "differs from three single runs: $(diff <(steady "$dir/multi.$f") <(steady "$dir/singles.$f") | head -5)"
	fi
done

# With the two-runtime host: both of its runtimes (numbered in address
# order), each equal to one library's own profile.
timeout 120 "$bin" --pid "$three,${pids[3]}" -v --format pprof --output "$dir/four.pb.gz" 2>"$dir/four.err"
st=$?
h=${pids[3]}
matched=
for f in "$dir/four.pb.gz.$h" "$dir/four.pb.gz.$h.2"; do
	for g in a b; do
		"$cmpprof" "$dir/$g.pb.gz" "$f" >/dev/null 2>&1 && matched="$matched$g"
	done
done
if [ $st -ne 0 ]; then
	bad two-runtimes "exit $st: $(grep -v libbpf "$dir/four.err" | head -3)"
elif [ "$matched" != ab ] && [ "$matched" != ba ]; then
	bad two-runtimes "the host's two profiles match its libraries' own as '$matched', want each once"
else
	ok "two-runtimes ($(grep -E '^goheap-bpf: [0-9]+ process' "$dir/four.err"))"
fi

echo "multi: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
