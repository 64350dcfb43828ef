#!/usr/bin/env bash
# output.sh - the output-file rules (user/outfile/output.c; README "Output
# files") on the command, profiling a live Go target: each case writes
# --output somewhere and checks what is there afterwards (mode, owner,
# content, leftovers) and the exit status; refusals must also be one
# stderr line naming the path. Each case's stderr is kept in
# build/output/.
#
#   tests/integration/output.sh BIN      (needs root: BPF, chown, mknod,
#                                         a loop device)
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

# 4. Signals. SIGINT, SIGTERM and SIGHUP while a large file is written (a
# JSON document of about 200 MB, from tools/bench/benchgen's 200k stacks)
# remove its temporary file, and the command ends by that signal (status
# 128 + N); the BPF programs it loaded go with it (none is pinned).
go=$(tools/go-toolchains.sh goroot "${versions[0]}")/bin/go
(cd tools/bench/benchgen && "$go" build -o "$out/benchgen" .) || die "benchgen did not build"
BENCHGEN_BUCKETS=200000 "$out/benchgen" >"$out/benchgen.log" 2>&1 &
pids+=($!)
bg=$!
for ((i = 0; i < 600; i++)); do
	[ -s "$out/benchgen.log" ] && break
	kill -0 "$bg" 2>/dev/null || break
	sleep 0.1
done
[ -s "$out/benchgen.log" ] || die "benchgen not ready"
mkdir "$tmp/sig"

# goheap_progs: the IDs of the BPF programs named goheap_* now loaded.
goheap_progs() {
	bpftool prog show -j | python3 -c 'import json, sys
print(*[p["id"] for p in json.load(sys.stdin) if p.get("name", "").startswith("goheap_")])'
}

# interrupt NAME SIG ENV_OPTION: a JSON run into $tmp/sig/big.json, its
# signal dispositions set by env ENV_OPTION, sent SIG once its temporary
# file holds data. Sets st, and ours: the goheap_* programs that were not
# loaded before. Returns 1 if the run ended before the signal.
interrupt() {
	local name=$1 sig=$2 tool before t i sent
	find "$tmp/sig" -mindepth 1 -delete
	before=" $(goheap_progs) "
	env "$3" "$bin" --pid "$bg" --format json --output "$tmp/sig/big.json" \
		2>"$out/$name.err" &
	tool=$!
	for ((i = 0; i < 6000; i++)); do
		for t in "$tmp"/sig/big.json.tmp.*; do [ -s "$t" ] && break 2; done
		kill -0 "$tool" 2>/dev/null || break
		sleep 0.01
	done
	ours=
	for t in $(goheap_progs); do [[ $before == *" $t "* ]] || ours+=" $t"; done
	kill -"$sig" "$tool" 2>/dev/null && sent=1
	# (bash would report the hangup on stderr)
	{ wait "$tool"; } 2>/dev/null
	st=$?
	[ -n "${sent:-}" ]
}

# outlived: the programs of $ours still loaded 10 s on (freeing them is
# deferred in the kernel), if any.
outlived() {
	local i p left
	for ((i = 0; i < 100; i++)); do
		left=
		for p in $ours; do [[ " $(goheap_progs) " == *" $p "* ]] && left+=" $p"; done
		[ -z "$left" ] && return
		sleep 0.1
	done
	echo "BPF programs$left outlived the process"
}

for sig in INT TERM HUP; do
	want=$((128 + $(kill -l "$sig")))
	for try in 1 2 3; do
		# A script's background job starts with SIGINT ignored: not this one.
		interrupt "signal-$sig" "$sig" --default-signal="$sig" && break
		echo "signal-$sig: the run ended before the signal (try $try)"
	done
	left=$(find "$tmp/sig" -mindepth 1)
	if [ "$st" -ne "$want" ]; then
		verdict "signal-$sig" "exit status $st, want $want"
	elif [ -n "$left" ]; then
		verdict "signal-$sig" "left behind: $left"
	else
		verdict "signal-$sig" "$(outlived)"
	fi
done

# A signal ignored from the start (nohup) stays ignored: the run goes on.
for try in 1 2 3; do
	interrupt nohup HUP --ignore-signal=HUP && break
	echo "nohup: the run ended before the signal (try $try)"
done
size=$(stat -c %s "$tmp/sig/big.json" 2>/dev/null)
left=$(find "$tmp/sig" -mindepth 1 ! -name big.json)
if [ "$st" -ne 0 ]; then
	verdict nohup "exit status $st, want 0"
elif [ "${size:-0}" -lt 100000000 ] || [ -n "$left" ]; then
	verdict nohup "big.json is ${size:-not there}, left behind: ${left:-nothing}"
else
	verdict nohup ""
fi

echo "output: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
