#!/usr/bin/env bash
# run.sh - goheap-bpf's error tests: one case per failure the CLI reports,
# each checking the exit status (enum gh_status in include/goheap.h) and
# that stderr is the single line "goheap-bpf: <cause>; <fix>" naming the
# cause. Bad flags only need status 2 and a message naming the flag.
#
#   tests/errors/run.sh BIN
#
# Targets come from tests/targets (built with the newest supported Go, and
# go1.17 for "unsupported version"; cached under build/targets/). The
# negative corpus: binaries built with odd flags or damaged on disk after
# the build (GOARCH=386, -linkshared when the toolchain still builds it, a
# Go binary cut after its last loadable segment, one without .go.buildinfo;
# the non-Go ELF is "not-go"), each still runnable, each refused with its
# own message and status. Each
# case's output is kept in build/errors/. Needs root: BPF, and one case
# drops to the nobody user.
set -uo pipefail

die() {
	echo "errors: $*" >&2
	exit 1
}

[ $# -eq 1 ] || die "usage: run.sh BIN"
bin=$(realpath -e "$1" 2>/dev/null) || die "no binary $1; build it with make"
cd "$(dirname "$0")/../.." || exit 1
[ "$(id -u)" -eq 0 ] || die "needs root for BPF (CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE) and to run a case as nobody"

if command -v go >/dev/null; then hostgo=$(command -v go); else hostgo=/usr/local/go/bin/go; fi
out=$PWD/build/errors
rm -rf "$out"
mkdir -p "$out"
tmp=$(mktemp -d) || exit 1

# ---- targets ----
newest=$(tools/go-toolchains.sh list | tail -1)
new_root=$(tools/go-toolchains.sh goroot "$newest") || die "no Go $newest toolchain"
for t in heapgen noprof rate0 nodata; do
	tests/targets/build.sh "$t" exe "$new_root" "build/targets/$newest/exe/$t" ||
		die "building $t with Go $newest failed"
done
tests/targets/build.sh nodata 386 "$new_root" "build/targets/$newest/386/nodata" ||
	die "building nodata for GOARCH=386 with Go $newest failed"
mkdir -p "$out/linkshared"
tests/targets/build.sh nodata linkshared "$new_root" "build/targets/$newest/linkshared/nodata" \
	>"$out/linkshared/build.log" 2>&1 || linkshared_fails=1
# A release older than any goheap-bpf supports, from the module proxy.
old=1.17.13
old_root=$(cd / && GOTOOLCHAIN=go$old GOFLAGS= "$hostgo" env GOROOT 2>"$out/go$old.log") &&
	tests/targets/build.sh nodata exe "$old_root" "build/targets/$old/exe/nodata" >>"$out/go$old.log" 2>&1 ||
	old_root=

cleanup() {
	local p
	for p in $(jobs -p); do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	mountpoint -q "$tmp/full" && umount "$tmp/full"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start NAME EXE [ENV=VALUE...]: run a target in the background with its
# stdout in $out/NAME.target and wait (30 s at most) until it says ready
# (heapgen: its ready file). Sets $pid; returns 1 if it never got ready.
start() {
	local name=$1 exe=$2 i
	shift 2
	env "$@" HEAPGEN_RATE=4096 HEAPGEN_PROFILE="$tmp/$name.pb.gz" HEAPGEN_READY="$tmp/$name.ready" \
		"$exe" >"$out/$name.target" 2>&1 &
	pid=$!
	for ((i = 0; i < 300; i++)); do
		{ [ -e "$tmp/$name.ready" ] || grep -q '^ready' "$out/$name.target"; } && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "target $exe not ready: $(tail -2 "$out/$name.target")" >"$out/$name.why"
	return 1
}

stop() {
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

pass=0 fail=0
verdict() { # NAME WHY (empty: passed)
	if [ -z "$2" ]; then
		pass=$((pass + 1))
		echo "PASS $1: $(head -1 "$out/$1.err" 2>/dev/null)"
	else
		fail=$((fail + 1))
		echo "FAIL $1: $2"
		[ -s "$out/$1.err" ] && sed 's/^/    stderr: /' "$out/$1.err" | head -5
	fi
}

# run NAME ARGS...: run BIN (stdout and stderr to $out/NAME.{out,err});
# the exit status is left in $st. GH_AS is an optional command prefix.
run() {
	local name=$1
	shift
	# shellcheck disable=SC2086
	timeout 60 ${GH_AS:-} "$bin" "$@" >"$out/$name.out" 2>"$out/$name.err"
	st=$?
}

# json_status NAME WANT: the last run's stdout is one JSON document whose
# status is WANT (counted as its own check).
json_status() {
	local got
	got=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["status"])' \
		"$out/$1.out" 2>&1)
	if [ "$got" = "$2" ]; then verdict "$1-status" ""; else
		verdict "$1-status" "JSON status $got, want $2"; fi
}

# expect NAME STATUS CAUSE_RE: judge the last run: its status, one stderr
# line "goheap-bpf: <cause>; <fix>", the cause matching CAUSE_RE.
expect() {
	local name=$1 want=$2 re=$3 n
	n=$(wc -l <"$out/$name.err")
	if [ "$st" -ne "$want" ]; then
		verdict "$name" "exit status $st, want $want"
	elif [ "$n" -ne 1 ]; then
		verdict "$name" "stderr has $n lines, want 1"
	elif ! grep -q '^goheap-bpf: .*; ' "$out/$name.err"; then
		verdict "$name" "stderr is not 'goheap-bpf: <cause>; <fix>'"
	elif ! grep -Eiq -- "$re" "$out/$name.err"; then
		verdict "$name" "stderr does not name the cause (/$re/)"
	else
		verdict "$name" ""
	fi
}

# expect_usage NAME FLAG_RE: status 2, and stderr names the bad flag.
expect_usage() {
	local name=$1 re=$2
	if [ "$st" -ne 2 ]; then
		verdict "$name" "exit status $st, want 2"
	elif ! grep -Eq -- "$re" "$out/$name.err"; then
		verdict "$name" "stderr does not name the flag (/$re/)"
	else
		verdict "$name" ""
	fi
}

# not_started NAME: the case's target could not be prepared.
not_started() {
	: >"$out/$1.err"
	verdict "$1" "$(cat "$out/$1.why" 2>/dev/null || echo "target not started")"
}

# A live Go target for the cases that need one.
tgt=$newest/exe
start heapgen "build/targets/$tgt/heapgen" || die "$(cat "$out/heapgen.why")"
hg=$pid

# 3: no such process - the PID of a child that has exited and been reaped.
sh -c 'exit 0' &
gone_pid=$!
wait "$gone_pid"
if [ -e "/proc/$gone_pid" ]; then
	echo "PID $gone_pid was reused at once" >"$out/no-such-pid.why"
	not_started no-such-pid
else
	run no-such-pid --pid "$gone_pid"
	expect no-such-pid 3 "$gone_pid.*(process|exist)|(process|exist).*$gone_pid"
fi

# 4: not a Go program.
sleep 600 &
sl=$!
run not-go --pid "$sl"
expect not-go 4 "not a Go|no Go|Go runtime"
run not-go-goroutines --pid "$sl" --profile goroutine --format legacy
expect not-go-goroutines 4 "not a Go|no Go|Go runtime"
stop "$sl"

# 5: a Go release older than supported.
if [ -z "$old_root" ]; then
	echo "could not get or build with go$old: $(tail -2 "$out/go$old.log")" >"$out/go-version.why"
	not_started go-version
elif start go-version "build/targets/$old/exe/nodata"; then
	run go-version --pid "$pid"
	expect go-version 5 "1\.17|not supported|unsupported"
	stop "$pid"
else
	not_started go-version
fi

# 6: profiling disabled, by the linker (noprof) or by the program (rate0);
# each target first says what its own runtime.MemProfileRate is.
for t in noprof rate0; do
	if ! start "disabled-$t" "build/targets/$tgt/$t"; then
		not_started "disabled-$t"
	elif ! grep -q '^ready rate=0$' "$out/disabled-$t.target"; then
		echo "target's MemProfileRate is not 0: $(cat "$out/disabled-$t.target")" >"$out/disabled-$t.why"
		not_started "disabled-$t"
	else
		run "disabled-$t" --pid "$pid"
		expect "disabled-$t" 6 "disabled|MemProfileRate|profiling.*off"
		# JSON consumers get a document saying why, as well.
		run "disabled-$t-json" --pid "$pid" --format json
		expect "disabled-$t-json" 6 "disabled|MemProfileRate|profiling.*off"
		json_status "disabled-$t-json" unavailable
		# Nor did it turn on the block or mutex profile.
		run "not-enabled-block-$t" --pid "$pid" --profile block
		expect "not-enabled-block-$t" 6 "runtime\.SetBlockProfileRate"
		run "not-enabled-mutex-$t" --pid "$pid" --profile mutex --format json
		expect "not-enabled-mutex-$t" 6 "runtime\.SetMutexProfileFraction"
		json_status "not-enabled-mutex-$t" unavailable
	fi
	stop "$pid"
done

# 7: no heap-profile data published yet (the target's own runtime says
# there is no bucket at all).
if ! start no-data "build/targets/$tgt/nodata" GODEBUG=profstackdepth=0; then
	not_started no-data
elif ! grep -q '^ready buckets=0$' "$out/no-data.target"; then
	echo "target has heap-profile buckets: $(cat "$out/no-data.target")" >"$out/no-data.why"
	not_started no-data
else
	run no-data --pid "$pid"
	expect no-data 7 "no .*(data|sample|profile)|not .*yet"
fi
stop "$pid"

# 8: missing privileges - the nobody user, no capabilities, a root target.
mkdir -p "$tmp/nobody"
cp "$bin" "$tmp/nobody/goheap-bpf"
chmod 755 "$tmp" "$tmp/nobody" "$tmp/nobody/goheap-bpf"
bin_saved=$bin
bin=$tmp/nobody/goheap-bpf
GH_AS="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all" run no-privileges --pid "$hg"
bin=$bin_saved
expect no-privileges 8 "privilege|permission|root|CAP_|not permitted"

# 1: serve on a host without libmicrohttpd (its file hidden in a mount
# namespace of the run's own): refused at start, naming the package, while
# a one-shot read, which does not load it, still works there.
mhd=$(ldconfig -p | awk '/libmicrohttpd\.so\.[0-9]+ / { print $NF; exit }')
if [ -n "$mhd" ] && mhd=$(realpath -e "$mhd"); then
	printf '#!/bin/sh\nmount --bind /dev/null "%s" && exec "$@"\n' "$mhd" >"$tmp/nomhd"
	chmod 755 "$tmp/nomhd"
	GH_AS="unshare -m $tmp/nomhd" run no-libmicrohttpd serve --listen 127.0.0.1:0
	expect no-libmicrohttpd 1 "libmicrohttpd.*libmicrohttpd12"
	GH_AS="unshare -m $tmp/nomhd" run no-libmicrohttpd-pid --pid "$hg" --backend procmem
	if [ "$st" -eq 0 ]; then verdict no-libmicrohttpd-pid ""; else
		verdict no-libmicrohttpd-pid "--pid without libmicrohttpd: exit status $st, want 0"
	fi
else
	echo "ldconfig -p lists no libmicrohttpd; make deps installs it" >"$out/no-libmicrohttpd.why"
	not_started no-libmicrohttpd
fi

# 9: a kernel without BTF, for the BPF iterator (auto would fall back to
# a backend that needs no BTF).
GOHEAP_SYSFS_BTF=/nonexistent run no-btf --backend iter --pid "$hg"
expect no-btf 9 "BTF"

# 9: a kernel without what a backend needs, refused before its BPF is
# loaded: this kernel's BTF, as goheap-bpf reads it, made to lack a helper
# (its name changed) - bpf_copy_from_user_task for iter (Linux 5.18+),
# bpf_ringbuf_output for perf (5.12+).
# lacking_btf HELPER: such a copy, in $tmp/vmlinux-without-HELPER.
lacking_btf() {
	python3 -c 'import sys
btf = open("/sys/kernel/btf/vmlinux", "rb").read()
name = b"BPF_FUNC_" + sys.argv[1].encode() + b"\0"
assert btf.count(name) == 1, "no %s in the kernel BTF" % name
open(sys.argv[2], "wb").write(btf.replace(name, name[:-2] + b"x\0"))' "$1" "$tmp/vmlinux-without-$1"
}
for c in "iter copy_from_user_task 5.18" "perf ringbuf_output 5.12"; do
	read -r backend helper release <<<"$c"
	if lacking_btf "$helper" 2>"$out/no-$helper.why"; then
		GOHEAP_SYSFS_BTF=$tmp/vmlinux-without-$helper run "no-$helper" --backend "$backend" --pid "$hg"
		expect "no-$helper" 9 "bpf_$helper.*Linux $release\+"
	else
		not_started "no-$helper"
	fi
done

# 10: the process exits during the snapshot: kill it while goheap-bpf
# pauses between opening it and reading it (seen as the tool sleeping in
# clock_nanosleep or nanosleep, syscalls 230 and 35 on x86-64).
if start exited "build/targets/$tgt/heapgen"; then
	victim=$pid
	GOHEAP_TEST_PAUSE_MS=3000 "$bin" --pid "$victim" --format pprof \
		--output "$tmp/exited-ours.pb.gz" >"$out/exited.out" 2>"$out/exited.err" &
	tool=$!
	paused=
	for ((i = 0; i < 400; i++)); do
		case $(cut -d' ' -f1 "/proc/$tool/syscall" 2>/dev/null) in
		230 | 35) paused=1 && break ;;
		esac
		kill -0 "$tool" 2>/dev/null || break
		sleep 0.05
	done
	stop "$victim"
	wait "$tool"
	st=$?
	if [ -z "$paused" ]; then
		verdict exited "goheap-bpf never paused (GOHEAP_TEST_PAUSE_MS); exit status $st"
	elif [ -n "$(find "$tmp" -name "exited-ours*")" ]; then
		verdict exited "an output file was written for a process that exited"
	else
		expect exited 10 "exit|gone|vanish|no longer|reused|disappear"
	fi
else
	not_started exited
fi

# ---- the negative corpus ----
# run_corpus NAME EXE STATUS CAUSE_RE: start EXE (a nodata build that
# prints "ready"), expect STATUS and a message matching CAUSE_RE.
run_corpus() {
	local name=$1 exe=$2 want=$3 re=$4
	if start "$name" "$exe"; then
		run "$name" --pid "$pid"
		expect "$name" "$want" "$re"
		stop "$pid"
	else
		not_started "$name"
	fi
}
nodata=build/targets/$newest/exe/nodata
# A 32-bit program runs only where the kernel has IA32 emulation: where
# exec(2) itself says ENOEXEC (the probe's status 8; a program that did
# start is killed once it printed its first line), tests/vm's i386 case
# shows the refusal on Debian's kernels instead.
python3 -c 'import subprocess, sys
try: p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE)
except OSError as e: sys.exit(8 if e.errno == 8 else 1)
p.stdout.readline(); p.kill(); p.wait()' "build/targets/$newest/386/nodata" >/dev/null 2>&1
if [ $? -ne 8 ]; then
	run_corpus corpus-386 "build/targets/$newest/386/nodata" 5 "32-bit"
else
	echo "NOTE corpus-386: this kernel runs no 32-bit program (exec: Exec format error, no IA32 emulation); tests/vm's i386 case checks the refusal"
fi
if [ -n "${linkshared_fails:-}" ]; then
	echo "SKIP corpus-linkshared: Go $newest cannot build -linkshared: $(tail -1 "$out/linkshared/build.log")"
else
	run_corpus corpus-linkshared "build/targets/$newest/linkshared/nodata" 5 "linkshared"
fi
# Cut after the last PT_LOAD: the program still runs, but its section
# contents past that point (symbol table, section names) are gone.
python3 - "$nodata" "$tmp/truncated" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
phoff = struct.unpack_from("<Q", b, 0x20)[0]
phentsize, phnum = struct.unpack_from("<HH", b, 0x36)
end = 0
for i in range(phnum):
    typ, _, off, _, _, filesz = struct.unpack_from("<IIQQQQ", b, phoff + i * phentsize)
    if typ == 1:
        end = max(end, off + filesz)
assert 0 < end < len(b), "nothing to cut"
open(sys.argv[2], "wb").write(b[:end])
PY
chmod 755 "$tmp/truncated"
run_corpus corpus-truncated "$tmp/truncated" 4 "truncat"
if objcopy --remove-section .go.buildinfo "$nodata" "$tmp/no-buildinfo" 2>"$out/corpus-no-buildinfo.why"; then
	run_corpus corpus-no-buildinfo "$tmp/no-buildinfo" 4 "\.go\.buildinfo"
else
	not_started corpus-no-buildinfo
fi

# 2: bad flags.
run usage-unknown-flag --pid "$hg" --bogus
expect_usage usage-unknown-flag "bogus"
run usage-missing-pid --format pprof
expect_usage usage-missing-pid "pid"
run usage-bad-format --pid "$hg" --format xml
expect_usage usage-bad-format "xml"
run usage-bad-pid --pid 12x
expect_usage usage-bad-pid "12x"
run usage-negative-top --pid "$hg" --top -1
expect_usage usage-negative-top "-1"
run usage-bad-index --pid "$hg" --sample-index bytes
expect_usage usage-bad-index "bytes"
# The goroutine profile's flags: its formats (top, pprof, json, its two
# texts, the leak view; with --all the summary, jsonl and pprof files
# only), no perf; --min-wait is the leak view's.
run usage-goroutines-without-profile --pid "$hg" --format goroutines
expect_usage usage-goroutines-without-profile "--profile goroutine"
run usage-leak-without-profile --pid "$hg" --format leak
expect_usage usage-leak-without-profile "--profile goroutine"
run usage-goroutine-format --pid "$hg" --profile goroutine --format json --min-wait 1s
expect_usage usage-goroutine-format "--format leak"
run usage-goroutine-min-wait --pid "$hg" --profile goroutine --format leak --min-wait 0
expect_usage usage-goroutine-min-wait "min-wait"
run usage-goroutine-index --pid "$hg" --profile goroutine --sample-index inuse_space
expect_usage usage-goroutine-index "inuse_space"
run usage-goroutine-all --all --profile goroutine --format legacy
expect_usage usage-goroutine-all "--pid"
run usage-goroutine-all-text --all --profile goroutine --format goroutines
expect_usage usage-goroutine-all-text "--format goroutines"
run usage-goroutine-all-leak --all --profile goroutine --format leak
expect_usage usage-goroutine-all-leak "leak view"
run usage-goroutine-backend --pid "$hg" --profile goroutine --format legacy --backend perf
expect_usage usage-goroutine-backend "procmem"
run usage-bad-profile --pid "$hg" --profile threads
expect_usage usage-bad-profile "threads"
run usage-profile-index --pid "$hg" --profile mutex --sample-index inuse_space
expect_usage usage-profile-index "inuse_space"
# block and mutex: with --all the summary, jsonl and pprof files (their
# legacy text is --pid's: blockmutex.sh)
run usage-profile-all --all --profile block --format legacy
expect_usage usage-profile-all "--pid"
# A sweep's flags: filters need --all, --all's formats, a bad regex.
run usage-filter-without-all --pid "$hg" --comm heapgen
expect_usage usage-filter-without-all "--all"
run usage-all-pprof --all --format pprof
expect_usage usage-all-pprof "--output-dir"
run usage-all-json --all --format json
expect_usage usage-all-json "jsonl"
run usage-bad-comm --all --comm 'heap(['
expect_usage usage-bad-comm "heap\(\["
# A --cgroup path beside the cgroup mounts (in the directory that holds
# one, under none): refused with the forms to use, not taken as a prefix
# that matches nothing. The mount comes from mountinfo, as goheap-bpf's.
cgmnt=$(awk '{ for (i = 7; i <= NF && $i != "-"; i++); if ($(i + 1) ~ /^cgroup2?$/ && $5 ~ /^\/.+\//) { print $5; exit } }' /proc/self/mountinfo)
if [ -n "$cgmnt" ]; then
	for fe in --all watch serve; do
		args=(--cgroup "${cgmnt%/*}/goheap-no-such-cgroup")
		[ "$fe" = watch ] && args+=(-d "$tmp/cgwatch")
		run "usage-cgroup-beside-mounts-${fe#--}" $fe "${args[@]}"
		expect "usage-cgroup-beside-mounts-${fe#--}" 2 \
			"^goheap-bpf: --cgroup: .* is under no cgroup mount; .*\(/[^)]+/x\)"
	done
else
	verdict usage-cgroup-beside-mounts "no cgroup mount below a directory in /proc/self/mountinfo"
fi

# 12: the output cannot be written, and nothing is left behind: a missing
# directory, then a full file system (the write itself fails).
run output-missing-dir --pid "$hg" --format pprof --output "$tmp/missing/heap.pb.gz"
if [ -e "$tmp/missing" ]; then
	verdict output-missing-dir "$tmp/missing was created"
else
	expect output-missing-dir 12 "$tmp/missing"
fi
# A sweep's output directory that is a file: refused, nothing written.
: >"$tmp/notadir"
run output-dir-is-file --all --pid "$hg" --output-dir "$tmp/notadir"
if [ -s "$tmp/notadir" ] || [ -s "$out/output-dir-is-file.out" ]; then
	verdict output-dir-is-file "something was written"
else
	expect output-dir-is-file 12 "$tmp/notadir.* not a directory"
fi
mkdir -p "$tmp/full"
if mount -t tmpfs -o size=4k tmpfs "$tmp/full" 2>"$out/output-full-fs.why" &&
	head -c 4096 /dev/zero >"$tmp/full/filler" 2>/dev/null; then
	run output-full-fs --pid "$hg" --format pprof --output "$tmp/full/heap.pb.gz"
	left=$(find "$tmp/full" -mindepth 1 ! -name filler | tr '\n' ' ')
	if [ -n "$left" ]; then
		verdict output-full-fs "files left behind: $left"
	else
		expect output-full-fs 12 "heap\.pb\.gz|space|write"
	fi
	umount "$tmp/full"
else
	not_started output-full-fs
fi

echo "errors: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
