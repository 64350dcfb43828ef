#!/bin/sh
# guest.sh - the cases of one test VM, run inside it (init.sh runs it
# chrooted into the host's /). POSIX sh: busybox ash runs it in the arm64
# VM, where the host's x86 bash cannot. It only runs things and keeps what
# they did: each case's files (goheap-bpf's output and stderr, exit
# statuses in *.st, the targets' own profiles) go to $GUEST_OUT/CASE/, and
# the host judges them afterwards (tests/vm/judge.sh), where the
# comparator and go tool pprof are.
#
# Environment (written by tests/vm/run.sh into the VM's run file):
#   GUEST_BIN      goheap-bpf (the release build of the VM's architecture)
#   GUEST_TARGETS  build/vm/targets/ARCH (targets.sh)
#   GUEST_OUT      the results share
#   GUEST_CASES    the cases, among:
#     read:BACKEND:VERSION:MODE  heapgen (spinning for perf) read once
#     auto:VERSION:MODE          --backend auto, pprof and JSON
#     busy                       churn read within one GC cycle (busy.sh)
#     all:V:M,V:M                --all --output-dir over heapgens
#     serve:VERSION:MODE         one serve scrape (curl, else wget)
#     goroutines:BACKEND:VERSION:MODE  the goroutine profile, and its own
#     watch                      watch --rss-above over grower
#     oom                        an OOM kill in a cgroup2 memory cgroup
#     userland:VERSION:MODE      the VM runs busybox and a Go program
#     i386:VERSION               a 32-bit Go program, --pid refused
set -u
bin=$GUEST_BIN
tg=$GUEST_TARGETS
res=$GUEST_OUT
uname -r >"$res/kver"
uname -m >"$res/machine"

now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# wait_until PID TENTHS TEST...: the command TEST holds (within TENTHS/10
# s) while PID lives.
wait_until() {
	wu_i=0 wu_pid=$1 wu_n=$2
	shift 2
	while [ $wu_i -lt "$wu_n" ]; do
		"$@" && return 0
		kill -0 "$wu_pid" 2>/dev/null || return 1
		sleep 0.1
		wu_i=$((wu_i + 1))
	done
	return 1
}

# wait_for FILE PID [TENTHS]: FILE exists (60 s) while PID lives.
wait_for() { wait_until "$2" "${3:-600}" test -e "$1"; }

# wait_grep PATTERN FILE PID [TENTHS]: PATTERN in FILE while PID lives.
wait_grep() { wait_until "$3" "${4:-600}" grep -q "$1" "$2" 2>/dev/null; }

# gone PID [TENTHS]: PID ended (30 s); reaped if ours.
gone() {
	i=0
	while [ $i -lt "${2:-300}" ]; do
		kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null; return 0; }
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

stop() {
	for p in "$@"; do kill -9 "$p" 2>/dev/null; done
	for p in "$@"; do wait "$p" 2>/dev/null; done
	return 0
}

# run NAME CMD...: CMD (2 min at most), stdout to NAME.out, stderr to
# NAME.err, status to NAME.st.
run() {
	n=$1
	shift
	timeout 120 "$@" >"$w/$n.out" 2>"$w/$n.err"
	echo $? >"$w/$n.st"
}

# heapgen DIR VERSION MODE [SPIN]: a heapgen whose own profile is
# DIR/theirs.pb.gz, ready; sets tpid (empty when it did not start).
heapgen() {
	mkdir -p "$1"
	HEAPGEN_RATE=4096 HEAPGEN_PROFILE=$1/theirs.pb.gz HEAPGEN_READY=$1/ready HEAPGEN_SPIN=${4:-} \
		"$tg/$2/$3/heapgen" >"$1/target.log" 2>&1 &
	tpid=$!
	wait_for "$1/ready" "$tpid" || { echo "not ready" >"$1/target.fail"; stop "$tpid"; tpid=; }
}

case_read() { # BACKEND VERSION MODE
	spin=
	[ "$1" = perf ] && spin=1
	heapgen "$w" "$2" "$3" $spin
	[ -n "$tpid" ] || return
	echo "$tpid" >"$w/pid"
	run pprof "$bin" --pid "$tpid" --backend "$1" --format pprof --output "$w/ours.pb.gz"
	stop "$tpid"
}

case_auto() { # VERSION MODE
	heapgen "$w" "$1" "$2"
	[ -n "$tpid" ] || return
	run pprof "$bin" --pid "$tpid" --format pprof --output "$w/ours.pb.gz"
	run json "$bin" --pid "$tpid" --format json --output "$w/ours.json"
	stop "$tpid"
}

case_busy() {
	# Its slowest pace (6.4 MB/s) collects every half second; a read
	# under TCG takes longer: GOGC=1000 makes the period some seconds.
	GOGC=1000 CHURN_PROFILE=$w/own.pb.gz CHURN_MBPS=1 CHURN_STACKS=2000 \
		"$tg/$newest/exe/churn" >"$w/target.log" 2>&1 &
	tpid=$!
	wait_grep '^ready' "$w/target.log" "$tpid" || { echo "not ready" >"$w/target.fail"; stop "$tpid"; return; }
	# Not before the second GC (busy.sh says why); then up to 10 tries
	# to read it and have it write its own within one GC cycle.
	j=0
	while [ $j -lt 100 ]; do
		g0=$(gc_count) || break
		[ "$g0" -ge 2 ] && break
		sleep 0.1
		j=$((j + 1))
	done
	# Still before it (TCG is slow): until the runtime publishes a
	# cycle, a profile sums every future one and moves with each
	# allocation, and the first of its own reads moves them into what
	# it publishes (mprof.go's "absolutely no data"). The target writes
	# that one, not compared; the reads after it hold still.
	if [ "${g0:-0}" -lt 2 ]; then
		kill -USR1 "$tpid"
		await "$w/own.pb.gz.gc" >/dev/null
		rm -f "$w/own.pb.gz"
	fi
	try=1
	while [ $try -le 10 ]; do
		g0=$(gc_count) || { echo "no GC count" >"$w/target.fail"; break; }
		run pprof "$bin" --pid "$tpid" --format pprof --output "$w/ours.pb.gz"
		kill -USR1 "$tpid"
		g=$(await "$w/own.pb.gz.gc") || { echo "no own profile" >"$w/target.fail"; break; }
		echo "try $try: GC count $g0 before, '$g' around its own, exit $(cat "$w/pprof.st")" >>"$w/tries"
		if [ "$g" = "$g0 $g0" ]; then
			echo "$try $g0" >"$w/cycle"
			break
		fi
		try=$((try + 1))
	done
	run json "$bin" --pid "$tpid" --format json --output "$w/ours.json"
	stop "$tpid"
}

# await FILE: its contents once the target wrote it (5 s), removed after.
await() {
	i=0
	while [ $i -lt 500 ]; do
		[ -s "$1" ] && { cat "$1"; rm -f "$1"; return 0; }
		sleep 0.01
		i=$((i + 1))
	done
	return 1
}

gc_count() {
	kill -USR2 "$tpid"
	await "$w/own.pb.gz.gc0"
}

case_all() { # V:M,V:M
	pids=
	: >"$w/pids"
	for vm in $(echo "$1" | tr ',' ' '); do
		v=${vm%%:*} m=${vm#*:}
		heapgen "$w/$v-$m" "$v" "$m"
		[ -n "$tpid" ] || continue
		pids="$pids $tpid"
		echo "$tpid $v-$m" >>"$w/pids"
	done
	run all "$bin" --all --output-dir "$w/sweep"
	# shellcheck disable=SC2086
	stop $pids
}

# get NAME URL FILE: URL into FILE with curl, else busybox's wget, as run
# NAME.
get() {
	if command -v curl >/dev/null; then
		run "$1" curl -sSf --max-time 100 -o "$3" "$2"
	else
		# Not -q -T: busybox 1.35's wget crashes with them on arm64.
		run "$1" wget -O "$3" "$2"
	fi
}

case_serve() { # VERSION MODE
	heapgen "$w" "$1" "$2"
	[ -n "$tpid" ] || return
	echo "$tpid" >"$w/pid"
	"$bin" serve --listen 127.0.0.1:0 --comm '^heapgen$' 2>"$w/serve.err" &
	spid=$!
	if wait_grep 'serving on http://127.0.0.1:' "$w/serve.err" "$spid" 300; then
		port=$(sed -n 's|^goheap-bpf: serving on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$w/serve.err")
		url=http://127.0.0.1:$port/pid/$tpid/debug/pprof/heap
		get get "$url" "$w/ours.pb.gz"
		kill -TERM "$spid"
		gone "$spid" 100 || stop "$spid"
	fi
	wait "$spid" 2>/dev/null
	echo $? >"$w/serve.st"
	stop "$tpid" "$spid"
}

# The goroutines target (goroutines parked in known states) read with
# --profile goroutine, then its own /debug/pprof/goroutine fetched.
case_goroutines() { # BACKEND VERSION MODE
	GOROUTINES_READY=$w/ready "$tg/$2/$3/goroutines" >"$w/target.log" 2>&1 &
	tpid=$!
	wait_for "$w/ready" "$tpid" || { echo "not ready" >"$w/target.fail"; stop "$tpid"; return; }
	run pprof "$bin" --pid "$tpid" --backend "$1" --profile goroutine --format pprof \
		--output "$w/ours.pb.gz"
	url=http://127.0.0.1:$(cat "$w/ready")/debug/pprof/goroutine
	# curl: over a connection a first request opened (goroutines.sh says
	# why); busybox's wget opens one per request.
	if command -v curl >/dev/null; then
		run own curl -sSf --max-time 100 -o /dev/null "$url?debug=1" -o "$w/theirs.pb.gz" "$url"
	else
		get own "$url" "$w/theirs.pb.gz"
	fi
	stop "$tpid"
}

case_watch() {
	"$tg/$newest/exe/grower" >"$w/target.log" 2>&1 &
	tpid=$!
	wait_grep '^ready' "$w/target.log" "$tpid" || { echo "not ready" >"$w/target.fail"; stop "$tpid"; return; }
	"$bin" watch -v -d "$w/snap" --pid "$tpid" --rss-above 96M --interval 100ms >"$w/watch.out" 2>"$w/watch.err" &
	wpid=$!
	wait_grep 'watching 1 process' "$w/watch.err" "$wpid" 300
	k=1
	# 16 MiB a signal: the crossing at the sixth or seventh.
	while [ $k -le 8 ]; do
		kill -USR1 "$tpid"
		wait_grep "^grown $((k * 16))\$" "$w/target.log" "$tpid" 300 || break
		ls "$w"/snap/*-rss-above.pb.gz >/dev/null 2>&1 && break
		k=$((k + 1))
	done
	i=0
	while [ $i -lt 100 ] && ! ls "$w"/snap/*-rss-above.pb.gz >/dev/null 2>&1; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.5
	kill -TERM "$wpid"
	gone "$wpid" 100 || stop "$wpid"
	wait "$wpid" 2>/dev/null
	echo $? >"$w/watch.st"
	stop "$tpid"
}

case_oom() {
	cg=/sys/fs/cgroup/goheap-oom
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>"$w/cgroup.err"
	mkdir -p "$cg" && echo $((96 << 20)) >"$cg/memory.max" ||
		{ echo "no cgroup2 memory controller" >>"$w/cgroup.err"; return; }
	echo 0 >"$cg/memory.swap.max" 2>/dev/null
	echo $((96 << 20)) >"$w/limit"
	# Run from tmpfs, copied from outside the cgroup: its text is then
	# shmem charged elsewhere, never evicted and read back over 9p as
	# the cgroup reclaims near its limit (which took minutes under TCG).
	cp "$tg/$newest/exe/oomgrow" /tmp/oomgrow
	OOMGROW_RATE=4096 OOMGROW_PROFILE=$w/own.pb.gz OOMGROW_READY=$w/ready OOMGROW_GO=$w/go \
		sh -c 'echo $$ >"$0/cgroup.procs" && exec "$1"' "$cg" /tmp/oomgrow \
		>"$w/target.log" 2>&1 &
	tpid=$!
	wait_for "$w/ready" "$tpid" || { echo "not ready" >"$w/target.fail"; stop "$tpid"; rmdir "$cg"; return; }
	"$bin" watch -v -d "$w/snap" --pid "$tpid" >"$w/watch.out" 2>"$w/watch.err" &
	wpid=$!
	if wait_grep 'watching 1 process' "$w/watch.err" "$wpid" 300; then
		touch "$w/go"
		gone "$tpid" 600 || echo "not OOM-killed in 60 s" >"$w/target.fail"
		gone "$wpid" 100 || { kill -TERM "$wpid"; gone "$wpid" 50; }
	fi
	wait "$wpid" 2>/dev/null
	echo $? >"$w/watch.st"
	stop "$tpid" "$wpid"
	dmesg 2>/dev/null | grep -E "Killed process|oom-kill" | tail -3 >"$w/kernel.log"
	rmdir "$cg" 2>/dev/null
}

# A GOARCH=386 program (nodata: prints "ready buckets=0", idles): --pid
# must refuse it, exit 5 naming 32-bit. Debian's amd64 kernels run 32-bit
# programs; a host kernel without IA32 emulation cannot show this.
case_i386() { # VERSION
	"$tg/$1/386/nodata" >"$w/target.log" 2>&1 &
	tpid=$!
	wait_grep '^ready' "$w/target.log" "$tpid" ||
		{ echo "not ready" >"$w/target.fail"; stop "$tpid"; return; }
	run pid "$bin" --pid "$tpid"
	stop "$tpid"
}

case_userland() { # VERSION MODE
	busybox uname -m >"$w/busybox.out" 2>&1
	echo $? >"$w/busybox.st"
	heapgen "$w" "$1" "$2"
	[ -n "$tpid" ] && echo ok >"$w/go.ok"
	[ -x "$bin" ] && echo ok >"$w/bin.ok"
	stop $tpid
}

newest=$(ls "$tg" | sort -t. -k1,1n -k2,2n -k3,3n | tail -1)
for c in $GUEST_CASES; do
	name=$(echo "$c" | tr ':,' '--')
	w=/tmp/w/$name
	rm -rf "$w"
	mkdir -p "$w"
	t0=$(now_ms)
	kind=${c%%:*}
	args=$(echo "${c#"$kind"}" | tr ':' ' ')
	[ "$kind" = all ] && args=${c#all:}
	if ! [ -x "$bin" ] && [ "$kind" != userland ]; then
		echo "no goheap-bpf at $bin" >"$w/nobin"
	else
		# shellcheck disable=SC2086
		case_$kind $args
	fi
	echo $(($(now_ms) - t0)) >"$w/ms"
	cp -r "$w" "$res/$name"
	echo "goheap-vm: case $name: $(cat "$w/ms") ms"
done
