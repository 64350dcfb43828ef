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
loop=
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	[ -z "$loop" ] || losetup -d "$loop"
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

# still_link LINK TEXT: a reason if LINK is no longer a link to TEXT.
still_link() {
	[ -L "$1" ] && [ "$(readlink "$1")" = "$2" ] || echo "$1 is no longer a link to $2"
}

# written NAME FILE WANT [WHY]: status 0, FILE a gzip profile, `stat -c
# '%a %U %G'` of FILE equal to WANT, no temporary file beside it; WHY as
# for refused.
written() {
	local name=$1 file=$2 want=$3 got left
	got=$(stat -c '%a %U %G' "$file" 2>&1)
	left=$(find "$(dirname "$file")" -maxdepth 1 -name '*.tmp.*' -o -maxdepth 1 -name '.goheap-*')
	if [ -n "${4:-}" ]; then
		verdict "$name" "$4"
	elif [ "$st" -ne 0 ]; then
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

# ok NAME [WHY]: status 0; WHY as for refused.
ok() {
	if [ -n "${2:-}" ]; then
		verdict "$1" "$2"
	elif [ "$st" -ne 0 ]; then
		verdict "$1" "exit status $st, want 0"
	else
		verdict "$1" ""
	fi
}

nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"

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
AS="$nobody --inh-caps=+sys_ptrace --ambient-caps=+sys_ptrace" \
	run owner-not-kept "$tmp/shared/root.pb.gz" --backend procmem
bin=$bin_saved
left=$(find "$tmp/shared" -mindepth 1 ! -name root.pb.gz)
refused owner-not-kept "owner of $tmp/shared/root.pb.gz" \
	"$(changed "$tmp/shared/root.pb.gz" old)${left:+left behind: $left}"

# 2. Links. The caller's own are followed, the link kept: an operator's
# "latest" link (relative, into another directory), and one to a file
# not written yet.
mkdir "$tmp/snaps"
echo old >"$tmp/snaps/1.pb.gz"
ln -s snaps/1.pb.gz "$tmp/latest.pb.gz"
run own-link "$tmp/latest.pb.gz"
written own-link "$tmp/snaps/1.pb.gz" "644 root root" "$(still_link "$tmp/latest.pb.gz" snaps/1.pb.gz)"
ln -s snaps/2.pb.gz "$tmp/next.pb.gz"
run own-link-new "$tmp/next.pb.gz"
written own-link-new "$tmp/snaps/2.pb.gz" "644 root root" "$(still_link "$tmp/next.pb.gz" snaps/2.pb.gz)"

# In a sticky directory anyone may write (as /tmp), what another user put
# there is not used: neither a link to root's file nor a file.
echo root >"$tmp/root.txt"
mkdir -m 1777 "$tmp/sticky"
$nobody ln -s "$tmp/root.txt" "$tmp/sticky/heap.pb.gz"
run sticky-link "$tmp/sticky/heap.pb.gz"
refused sticky-link "heap\.pb\.gz is uid 65534's" \
	"$(changed "$tmp/root.txt" root)$(still_link "$tmp/sticky/heap.pb.gz" "$tmp/root.txt")"
$nobody sh -c "echo old >$tmp/sticky/planted.pb.gz"
run sticky-file "$tmp/sticky/planted.pb.gz"
refused sticky-file "planted\.pb\.gz is uid 65534's" "$(changed "$tmp/sticky/planted.pb.gz" old)"

# Elsewhere, another user's link leads only to what that user owns: not
# to root's file, but to their own (replaced, their mode and owner kept).
mkdir "$tmp/nobodys"
chown nobody "$tmp/nobodys"
$nobody ln -s "$tmp/root.txt" "$tmp/nobodys/latest.pb.gz"
run others-link "$tmp/nobodys/latest.pb.gz"
refused others-link "link of uid 65534's leads to root\.txt" "$(changed "$tmp/root.txt" root)"
$nobody sh -c "echo old >$tmp/nobodys/theirs.pb.gz && ln -s theirs.pb.gz $tmp/nobodys/cur.pb.gz"
run others-link-theirs "$tmp/nobodys/cur.pb.gz"
written others-link-theirs "$tmp/nobodys/theirs.pb.gz" "644 nobody nogroup" \
	"$(still_link "$tmp/nobodys/cur.pb.gz" theirs.pb.gz)"

# 3. Devices. A block device is refused, its content untouched: a loop
# device over a file of zeros, through a node of our own (without loop
# devices, a node of a loop device not set up: the refusal alone).
mkdir "$tmp/dev"
head -c 1048576 /dev/zero >"$tmp/disk.img"
if loop=$(losetup -f --show "$tmp/disk.img" 2>"$out/losetup.err"); then
	mknod "$tmp/dev/disk" b "$((0x$(stat -c %t "$loop")))" "$((0x$(stat -c %T "$loop")))"
else
	echo "no loop device ($(cat "$out/losetup.err")): refusal only"
	mknod "$tmp/dev/disk" b 7 255
fi
run block-device "$tmp/dev/disk"
zeros=
[ -z "${loop:-}" ] || cmp -s -n 1048576 "$tmp/dev/disk" /dev/zero || zeros="the device was written"
refused block-device "block device" "$zeros"
[ -z "${loop:-}" ] || losetup -d "$loop"
loop=

# Character devices and FIFOs are written in place.
run dev-null /dev/null
ok dev-null "$([ -c /dev/null ] || echo "/dev/null is no longer a device")"
mkfifo "$tmp/fifo"
gzip -t <"$tmp/fifo" 2>"$out/fifo.gzip" &
reader=$!
run fifo "$tmp/fifo"
wait "$reader" || st_reader="the reader did not get a gzip profile"
ok fifo "${st_reader:-}$([ -p "$tmp/fifo" ] || echo "$tmp/fifo is no longer a FIFO")"
# /dev/stdout and /dev/fd/N are the open files they name: a pipe, and a
# file the shell opened (appended to, as stdout would be).
{ run stdout-pipe /dev/stdout; echo "$st" >"$tmp/pipe.st"; } | gzip -t 2>"$out/stdout-pipe.gzip"
piped=$?
st=$(cat "$tmp/pipe.st")
ok stdout-pipe "$([ "$piped" -eq 0 ] || echo "the pipe did not get a gzip profile")"
run fd-file /dev/fd/1 >"$tmp/fd.pb.gz"
written fd-file "$tmp/fd.pb.gz" "644 root root"

echo "output: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
