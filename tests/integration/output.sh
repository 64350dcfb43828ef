#!/usr/bin/env bash
# output.sh - the output-file rules (user/write/output.c; README "Output
# files") on the command, profiling a live Go target: each case writes
# --output somewhere and checks what is there afterwards (mode, owner,
# content, leftovers) and the exit status; refusals must also be one
# stderr line naming the path. Each case's stderr is kept in
# build/output/.
#
#   tests/integration/output.sh BIN      (needs root: BPF, chown)
set -uo pipefail

NAME=output
. "$(dirname "$0")/lib.sh"
setup "$@"
out=$PWD/build/output
rm -rf "$out"
mkdir -p "$out"
versions=("${versions[-1]}")
build_targets exe
tmp=$(mktemp -d) || exit 1
# Other users must reach the directories the cases give them.
chmod 755 "$tmp"

pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
HEAPGEN_RATE=4096 HEAPGEN_PROFILE=$tmp/own.pb.gz HEAPGEN_READY=$tmp/own.ready \
	"build/targets/${versions[0]}/exe/heapgen" >"$out/heapgen.log" 2>&1 &
pids+=($!)
hg=$!
wait_file "$tmp/own.ready" "$hg" || die "target not ready: $(tail -2 "$out/heapgen.log")"

pass=0 fail=0
# verdict NAME WHY: WHY empty means passed.
verdict() {
	if [ -z "$2" ]; then
		pass=$((pass + 1))
		echo "PASS $1"
	else
		fail=$((fail + 1))
		echo "FAIL $1: $2"
		sed 's/^/    stderr: /' "$out/$1.err" 2>/dev/null | head -3
	fi
}

# run NAME FILE [ARGS...]: a pprof profile of the target into FILE, stderr
# in $out/NAME.err, the exit status in $st. UMASK, if set, is the umask;
# AS, if set, a command prefix (another user).
run() {
	local name=$1 file=$2
	shift 2
	# shellcheck disable=SC2086
	(
		umask "${UMASK:-022}"
		exec timeout 60 ${AS:-} "$bin" --pid "$hg" --format pprof --output "$file" "$@"
	) 2>"$out/$name.err"
	st=$?
}

# refused NAME CAUSE_RE [WHY]: status 12 and one stderr line matching
# CAUSE_RE; WHY, if not empty, is a failure found by the case itself.
refused() {
	local name=$1 re=$2 n
	n=$(wc -l <"$out/$name.err")
	if [ -n "${3:-}" ]; then
		verdict "$name" "$3"
	elif [ "$st" -ne 12 ]; then
		verdict "$name" "exit status $st, want 12"
	elif [ "$n" -ne 1 ]; then
		verdict "$name" "stderr has $n lines, want 1"
	elif ! grep -Eq -- "$re" "$out/$name.err"; then
		verdict "$name" "stderr does not say why (/$re/)"
	else
		verdict "$name" ""
	fi
}

# changed FILE CONTENT: a reason if FILE no longer holds CONTENT.
changed() {
	printf '%s\n' "$2" | cmp -s - "$1" || echo "$1 was changed"
}

# written NAME FILE WANT: status 0, FILE a gzip profile, `stat -c '%a %U
# %G'` of FILE equal to WANT, and no temporary file beside it.
written() {
	local name=$1 file=$2 want=$3 got left
	got=$(stat -c '%a %U %G' "$file" 2>&1)
	left=$(find "$(dirname "$file")" -maxdepth 1 -name '*.tmp.*' -o -maxdepth 1 -name '.goheap-*')
	if [ "$st" -ne 0 ]; then
		verdict "$name" "exit status $st, want 0"
	elif ! gzip -t "$file" 2>/dev/null; then
		verdict "$name" "$file is not a gzip profile"
	elif [ "$got" != "$want" ]; then
		verdict "$name" "mode and owner '$got', want '$want'"
	elif [ -n "$left" ]; then
		verdict "$name" "left behind: $left"
	else
		verdict "$name" ""
	fi
}

# 1. A new file's mode is 0666 minus the umask.
UMASK=027 run umask-027 "$tmp/umask.pb.gz"
written umask-027 "$tmp/umask.pb.gz" "640 root root"
UMASK=002 run umask-002 "$tmp/umask2.pb.gz"
written umask-002 "$tmp/umask2.pb.gz" "664 root root"

# An existing file keeps its mode and its owner (another user's).
echo old >"$tmp/owned.pb.gz"
chown nobody:nogroup "$tmp/owned.pb.gz"
chmod 600 "$tmp/owned.pb.gz"
run keep-owner "$tmp/owned.pb.gz"
written keep-owner "$tmp/owned.pb.gz" "600 nobody nogroup"

# Names at and near NAME_MAX (255): the temporary file's name must fit.
for n in 250 255; do
	long=$tmp/$(printf 'h%.0s' $(seq "$n"))
	run "name-$n" "$long"
	written "name-$n" "$long" "644 root root"
done

# An owner that cannot be kept fails the write, and the file is left as
# it was: nobody, with CAP_SYS_PTRACE for the procmem backend but not
# CAP_CHOWN, replacing root's file in a directory anyone may write.
mkdir "$tmp/shared"
chmod 777 "$tmp/shared"
echo old >"$tmp/shared/root.pb.gz"
chmod 666 "$tmp/shared/root.pb.gz"
cp "$bin" "$tmp/goheap-bpf"
bin_saved=$bin
bin=$tmp/goheap-bpf
AS="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+sys_ptrace --ambient-caps=+sys_ptrace" \
	run owner-not-kept "$tmp/shared/root.pb.gz" --backend procmem
bin=$bin_saved
left=$(find "$tmp/shared" -mindepth 1 ! -name root.pb.gz)
refused owner-not-kept "owner of $tmp/shared/root.pb.gz" \
	"$(changed "$tmp/shared/root.pb.gz" old)${left:+left behind: $left}"

echo "output: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
