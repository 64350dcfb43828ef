#!/usr/bin/env bash
# sweep.sh - `goheap-bpf --all` (a sweep) on a crowded host, as issue 10
# asks: one request over many processes must give each Go process its own
# profile - never another's - read from one BPF load, each binary parsed
# once, and leave everything that is not Go out.
#
# The crowd (about 60 Go processes, every one with a MemProfileRate of its
# own, so that a profile given to the wrong process cannot compare equal):
#   - 20 replicas of one binary (the newest release, exe);
#   - four releases, each as exe, PIE, stripped exe and PIE, cgo (internal
#     linking) and cgo PIE (external linking), some twice;
#   - two in a mount and PID namespace of their own (unshare);
#   - three whose binary was deleted after they started (two copies of
#     one file, one of another);
#   - a C program hosting a Go c-shared library;
#   - 22 processes that are not Go: shells blocked in read (bash, dash),
#     python3, sleep and a small C program;
#   - a few moved into cgroups shaped as docker, kubepods (cgroupfs) and
#     kubepods (systemd, cri-containerd) name theirs.
#
# Checks:
#   main      one sweep, `--all --pid <every PID above> -v --output-dir`,
#             paused after opening (GOHEAP_TEST_PAUSE_MS) while the test
#             kills one Go target and gives another's PID to a new Go
#             program (ns_last_pid, as status.sh does):
#             - every Go process's file equals its own runtime/pprof
#               profile (cmpprof), under <comm>-<pid>.pb.gz, its index line
#               complete with its Go version, exe (the deleted ones' path
#               too), cgroup as /proc/PID/cgroup shows it on the host (v1
#               memory line, else v2; the namespaced ones too) and
#               container fields;
#             - index totals = the sums of the process's own profile = the
#               file's; the file's comments label it as the index does;
#             - "binaries parsed" = the distinct files the swept processes
#               map executable (computed from /proc; 20 replicas = 1);
#               one BPF load; "not Go" = the 22;
#             - the killed one: status failed, "exited", one stderr line,
#               no file; the reused PID: never the old process's profile;
#             - nothing of the non-Go processes anywhere (table, index,
#               files, stderr); exit status 11;
#             - the table: rows = index lines, ranked by in-use bytes, each
#               cell and the total row from the index's numbers.
#   filters   --pid (with a repeat, non-Go PIDs and a zombie), --comm,
#             --cgroup, --container (docker; kubepods cgroupfs;
#             cri-containerd) each select exactly the expected processes,
#             host-wide, and count the others examined as -v says.
#   jsonl     --format jsonl --top 3: one JSON document per line, entries
#             bounded, totals as the index's.
#   goroutines
#             three tests/targets/gogrow (the newest release) parked at
#             10, 37 and 200 goroutines, and a stripped one: each row's
#             GOROUTINES equals the runtime.NumGoroutine() the process
#             wrote itself, the stripped one's is "-", the total row
#             their sum; then again after SIGUSR1 parked 100 more in one.
#   kinds     --profile block, mutex, goroutine and allocs over several
#             targets at once, with the first and last release given
#             (GO_VERSIONS):
#             tests/targets/contend (block and mutex on, stopped
#             contending), tests/targets/goroutines (goroutines parked
#             for good, its own endpoint) and a heapgen (block and mutex
#             off):
#             - block, mutex (--output-dir): each contend's file equals
#               the profile it wrote itself just before (but for what the
#               runtime adds on its own: the mutex profile's own locks, as
#               blockmutex.sh's exact case; a GC starting its workers) and
#               lies between that one and one written just after
#               (-bracket); the others are "disabled" rows, their index
#               status unavailable naming the call that turns the profile
#               on, one stderr line each, no file; exit 11;
#             - the tables (delay; mutex also --sample-index contentions):
#               each cell and the total row from the index, ranked;
#             - goroutine (--output-dir): exit 0, each goroutines target's
#               file equals its own /debug/pprof/goroutine fetched after
#               it (cmpprof -dropstack the serving goroutine's, as
#               goroutines.sh), the table ranked by goroutines, each cell
#               the index's; --format jsonl: one document per process,
#               kind and status as the index's;
#             - allocs (--output-dir): exit 0, each goroutines target's
#               file equals its own /debug/pprof/allocs, fetched before
#               (or after), its default sample type alloc_space.
#
# Why: the sweep is one pass over everything, so a mistake there (a
# result routed to the wrong PID, a cache keyed wrongly, a vanished
# process read anyway, a filter that leaks) shows only with many processes
# of mixed kinds at once.
#
#   tests/integration/sweep.sh BIN
#
# Needs root: BPF (CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE), namespaces,
# cgroups (made under this shell's own cgroup, removed at exit) and
# /proc/sys/kernel/ns_last_pid; dies at once without it. Every process it
# starts is killed at exit. Files are kept under build/sweep/. About 20 s
# on 2 cores once the targets (4 releases x 6 shapes + a c-shared
# library, cached under build/targets/) are built.
set -uo pipefail

NAME=sweep
. "$(dirname "$0")/lib.sh"
setup "$@"
# The releases of the kinds' check: the first and last given.
kinds_rel=("${versions[0]}")
[ ${#versions[@]} -gt 1 ] && kinds_rel+=("${versions[-1]}")
for c in gcc unshare python3; do command -v $c >/dev/null || die "no $c"; done
out=$PWD/build/sweep
rm -rf "$out"
mkdir -p "$out"/{own,bin,log,sum}
check=$PWD/tests/integration/sweepcheck.py
t0=$(date +%s)
# Names unique to this run: comm prefix, cgroup directory.
tag=$(printf 'sw%x' $$)

# ---- targets ----
# Four releases spread over GO_VERSIONS (every supported one by default;
# fewer given, some taken twice).
all=("${versions[@]}")
n=${#all[@]}
rel=()
for i in 1 $((n / 3)) $((2 * n / 3)) $((n - 1)); do
	[ "$i" -lt "$n" ] || i=$((n - 1))
	rel+=("${all[$i]}")
done
shapes=(exe pie exe-stripped pie-stripped cgo cgo-pie-ext)
versions=("${rel[@]}")
build_targets "${shapes[@]}"
versions=("${rel[2]}")
build_targets c-shared
host=$PWD/build/targets/host/host
host_src=tests/targets/cshared/host.c
mkdir -p "$(dirname "$host")"
if [ "$(cat "$host.stamp" 2>/dev/null)" != "$(sha256sum <"$host_src")" ]; then
	gcc -O2 -Wall -Wextra -Werror -o "$host" "$host_src" -ldl -lpthread || die "building the C host failed"
	sha256sum <"$host_src" >"$host.stamp"
fi
printf '#include <unistd.h>\nint main(void) { for (;;) pause(); }\n' |
	gcc -x c -o "$out/bin/$tag-pause" - || die "building the C sleeper failed"
build_cmpprof "$out"
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
target() { echo "$PWD/build/targets/$1/$2/heapgen"; }
echo "sweep: targets built ($(($(date +%s) - t0)) s)"

# ---- processes ----
procs=()          # everything to kill at exit
gopids=()         # Go processes whose profiles are compared
nongo=()          # processes that are not Go
declare -A own ready logf ver exe_of cid crt pod problem born
id=0 rate=0

# starttime PID: when it started (/proc/PID/stat field 22); "" if gone.
starttime() {
	local st
	st=$(cat /proc/"$1"/stat 2>/dev/null) || return 0
	read -r -a st <<<"${st##*) }"
	echo "${st[19]}"
}

# keep PID: a process of this test's, to kill at exit.
keep() {
	procs+=("$1")
	born[$1]=$(starttime "$1")
}

# slay PID...: SIGKILL those still the processes kept under these PIDs
# (never another that took a PID since), and wait until they are reaped.
# Disowned first: bash would report "Killed" for them at some later point.
slay() {
	local p i v=()
	for p in "$@"; do
		[ -n "${born[$p]:-}" ] && [ "$(starttime "$p")" = "${born[$p]}" ] || continue
		v+=("$p")
		disown "$p" 2>/dev/null
		kill -9 "$p" 2>/dev/null
	done
	for p in "${v[@]}"; do
		for ((i = 0; i < 500; i++)); do
			[ "$(starttime "$p")" = "${born[$p]}" ] || break
			sleep 0.01
		done
	done
}

cleanup() {
	local i
	slay "${procs[@]}"
	[ -n "${cgdir:-}" ] && [ -d "$cgdir" ] || return 0
	for i in 1 2 3 4 5 6 7 8 9 10; do
		find "$cgdir" -depth -type d -exec rmdir {} + 2>/dev/null
		[ -d "$cgdir" ] || return 0
		sleep 0.2
	done
	echo "sweep: could not remove $cgdir" >&2
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# next: a new id and a MemProfileRate no other process has (one at 1).
next() {
	id=$((id + 1))
	rate=$((id == 1 ? 1 : 512 + 61 * id))
}

# track PID ROLE VERSION EXE [extra]: a Go process; without a fifth
# argument its profile is compared.
track() {
	keep "$1"
	[ $# -gt 4 ] || gopids+=("$1")
	own[$1]=$out/own/$id.pb.gz
	ready[$1]=$out/own/$id.ready
	logf[$1]=$out/log/$id.log
	ver[$1]=$3
	exe_of[$1]=$4
}

# start_go ROLE VERSION EXE [extra]: heapgen, writing its own profile.
start_go() {
	next
	HEAPGEN_RATE=$rate HEAPGEN_PROFILE=$out/own/$id.pb.gz HEAPGEN_READY=$out/own/$id.ready \
		"$3" >"$out/log/$id.log" 2>&1 &
	track $! "$@"
	gp=$!
}

# child_of PID COMM: PID's child once it runs COMM.
child_of() {
	local i c
	for ((i = 0; i < 200; i++)); do
		for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
			[ "$(cat /proc/"$c"/comm 2>/dev/null)" = "$2" ] && echo "$c" && return 0
		done
		sleep 0.05
	done
	return 1
}

# start_ns VERSION EXE: heapgen as PID 1 of a new PID and mount namespace.
start_ns() {
	local u
	next
	HEAPGEN_RATE=$rate HEAPGEN_PROFILE=$out/own/$id.pb.gz HEAPGEN_READY=$out/own/$id.ready \
		unshare --mount --pid --fork --propagation private "$2" >"$out/log/$id.log" 2>&1 &
	u=$!
	keep "$u"
	gp=$(child_of "$u" heapgen) || die "no heapgen inside unshare $u"
	track "$gp" ns "$1" "$2"
	nspids+=("$gp")
}

# start_host VERSION: the C host running heapgen as a c-shared library.
start_host() {
	local lib
	lib=$(target "$1" c-shared)
	next
	HEAPGEN_RATE=$rate "$host" "$out/own/$id.ready" "$lib" "$out/own/$id.pb.gz" "$out/own/$id.lib" \
		>"$out/log/$id.log" 2>&1 &
	track $! cshared "$1" "$host"
	gp=$!
}

# start_nongo STDIN COMMAND...: a process that is not Go.
start_nongo() {
	local in=$1
	shift
	"$@" <"$in" >/dev/null 2>&1 &
	keep $!
	nongo+=($!)
}

# start_zombie: a Go program that exits at once (heapgen without its
# environment) and that its parent never reaps; its comm matches the
# --comm filter's. It runs once its parent is sleep (the shell before it
# might reap it).
start_zombie() {
	local i
	cp "$(target "${rel[3]}" exe)" "$out/bin/$tag-delz"
	sh -c "(sleep 0.3; exec '$out/bin/$tag-delz') & echo \$! >'$out/zombie.pid'; exec sleep 3600" \
		>/dev/null 2>&1 &
	keep $!
	for ((i = 0; i < 200; i++)); do
		zombie=$(cat "$out/zombie.pid" 2>/dev/null)
		[ -n "$zombie" ] && [ "$(cut -d' ' -f3 /proc/"$zombie"/stat 2>/dev/null)" = Z ] && return 0
		sleep 0.05
	done
	die "no zombie"
}

start_crowd() {
	local i v s
	for ((i = 0; i < 20; i++)); do start_go replica "${rel[3]}" "$(target "${rel[3]}" exe)"; done
	replicas=("${gopids[@]}")
	for v in "${rel[@]}"; do
		for s in "${shapes[@]}"; do start_go "$s" "$v" "$(target "$v" "$s")"; done
		for s in pie pie-stripped cgo-pie-ext; do start_go "$s" "$v" "$(target "$v" "$s")"; done
	done
	nspids=()
	start_ns "${rel[0]}" "$(target "${rel[0]}" exe)"
	start_ns "${rel[0]}" "$(target "${rel[0]}" exe)"
	cp "$(target "${rel[1]}" pie)" "$out/bin/$tag-del1"
	cp "$(target "${rel[2]}" exe-stripped)" "$out/bin/$tag-del2"
	deleted=()
	start_go deleted "${rel[1]}" "$out/bin/$tag-del1"
	deleted+=("$gp")
	start_go deleted "${rel[1]}" "$out/bin/$tag-del1"
	deleted+=("$gp")
	start_go deleted "${rel[2]}" "$out/bin/$tag-del2"
	deleted+=("$gp")
	start_host "${rel[2]}"
	hostpid=$gp
	# Two more, for the paused sweep: one is killed, one's PID reused.
	start_go killed "${rel[1]}" "$(target "${rel[1]}" exe)" extra
	killed=$gp
	start_go reused "${rel[2]}" "$(target "${rel[2]}" exe)" extra
	reused=$gp
	# Not Go: shells blocked reading a FIFO nobody writes, python3, sleep,
	# a C program.
	mkfifo "$out/fifo"
	exec 9<>"$out/fifo"
	for ((i = 0; i < 4; i++)); do start_nongo "$out/fifo" bash -c 'read -r _'; done
	for ((i = 0; i < 4; i++)); do start_nongo "$out/fifo" sh -c 'read _'; done
	# python3 says when its imports are done: what it maps is settled.
	for ((i = 0; i < 6; i++)); do
		start_nongo /dev/null "$py" -c 'import sys, time; open(sys.argv[1], "w").close(); time.sleep(3600)' \
			"$out/own/py$i.ready"
	done
	for ((i = 0; i < 6; i++)); do start_nongo /dev/null "$out/bin/$tag-pause"; done
	for ((i = 0; i < 2; i++)); do start_nongo /dev/null sleep 3600; done
	start_zombie
}

wait_crowd() {
	local p
	for p in "${gopids[@]}" "$killed" "$reused"; do
		wait_file "${ready[$p]}" "$p" || die "process $p (${exe_of[$p]}) not ready: $(tail -2 "${logf[$p]}")"
	done
	for p in 0 1 2 3 4 5; do
		wait_file "$out/own/py$p.ready" "${nongo[$((8 + p))]}" || die "python3 did not start"
	done
	rm -f "$out/bin/$tag-del1" "$out/bin/$tag-del2"
	for p in "${deleted[@]}"; do
		[[ $(readlink /proc/"$p"/exe) == *" (deleted)" ]] || die "process $p: its binary is not deleted"
	done
	for p in "${nspids[@]}"; do
		[ "$(readlink /proc/"$p"/ns/pid)" != "$(readlink /proc/self/ns/pid)" ] &&
			[ "$(readlink /proc/"$p"/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ] ||
			die "process $p is not in namespaces of its own"
	done
}

# ---- cgroups ----
# v1's memory controller when mounted (what goheap-bpf reports first),
# else the v2 hierarchy; the test's directory goes under this shell's own
# cgroup. cgfs is where the hierarchy is mounted; cgtop and cg_* are paths
# as /proc/PID/cgroup names them.
setup_cgroups() {
	local self
	if [ -d /sys/fs/cgroup/memory ] && grep -Eq '^[0-9]+:([^:]*,)?memory(,[^:]*)?:' /proc/self/cgroup; then
		cgfs=/sys/fs/cgroup/memory
		self=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
	elif [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then
		cgfs=/sys/fs/cgroup
		self=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
	else
		die "no writable cgroup hierarchy (v1 memory or v2) under /sys/fs/cgroup"
	fi
	cgtop=${self%/}/goheap-$tag
	cgdir=$cgfs$cgtop
	hex() { od -An -tx1 -N32 /dev/urandom | tr -d ' \n'; }
	dockerid=$(hex) kubeid=$(hex) crid=$(hex)
	uid1=$(cat /proc/sys/kernel/random/uuid) uid2=$(cat /proc/sys/kernel/random/uuid)
	cg_docker=$cgtop/docker/$dockerid
	cg_kube=$cgtop/kubepods/burstable/pod$uid1/$kubeid
	cg_cri=$cgtop/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${uid2//-/_}.slice/cri-containerd-$crid.scope
	mkdir -p "$cgfs$cg_docker" "$cgfs$cg_kube" "$cgfs$cg_cri" || die "cannot make cgroups under $cgdir"
}

# move PID CGPATH ID RUNTIME POD: into that cgroup, with what the index
# must then say.
move() {
	echo "$1" >"$cgfs$2/cgroup.procs" || die "cannot move $1 into $2"
	cid[$1]=$3 crt[$1]=$4 pod[$1]=$5
}

populate_cgroups() {
	local p
	for p in "${replicas[@]:0:3}"; do move "$p" "$cg_docker" "$dockerid" docker ""; done
	move "${nongo[14]}" "$cg_docker" "" "" "" # a C sleeper
	in_kube=("${gopids[21]}" "${gopids[24]}")  # oldest release's PIE and cgo
	for p in "${in_kube[@]}"; do move "$p" "$cg_kube" "$kubeid" "" "$uid1"; done
	in_cri=("$hostpid" "${nspids[0]}")
	for p in "${in_cri[@]}"; do move "$p" "$cg_cri" "$crid" containerd "$uid2"; done
}

# The cgroup goheap-bpf must report for PID: v1 memory line, else v2's.
host_cgroup() {
	awk -F: '$2 ~ /(^|,)memory(,|$)/ { v1 = $3 } $1 == "0" && $2 == "" { v2 = $3 }
		END { print (v1 != "" ? v1 : v2) }' /proc/"$1"/cgroup
}

# ---- results ----
pass=0 fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }
join() { local IFS=,; echo "$*"; }

# load_index: $dir/index.jsonl into ix_* arrays by PID (ix_pids in
# order); its rows in $dir.tsv.
load_index() {
	local pid comm exe gov cg c r p st why file
	declare -gA ix_comm=() ix_exe=() ix_go=() ix_cg=() ix_cid=() ix_crt=() ix_pod=() ix_st=() ix_why=() ix_file=()
	ix_pids=()
	"$check" tsv "$dir/index.jsonl" pid comm exe runtime_version cgroup container_id container_runtime \
		pod_uid status status_reason file >"$dir.tsv" || return 1
	while IFS=$'\x1f' read -r pid comm exe gov cg c r p st why file; do
		ix_pids+=("$pid")
		ix_comm[$pid]=$comm ix_exe[$pid]=$exe ix_go[$pid]=$gov ix_cg[$pid]=$cg
		ix_cid[$pid]=$c ix_crt[$pid]=$r ix_pod[$pid]=$p ix_st[$pid]=$st ix_why[$pid]=$why ix_file[$pid]=$file
	done <"$dir.tsv"
}

# summary FILE: the -v summary line's numbers into s_*.
summary() {
	local re='([0-9]+) process(es)? examined \(([0-9]+) not Go\), ([0-9]+) results?.*: ([0-9]+) BPF loads?, ([0-9]+) iterator pass(es)?, ([0-9]+) binar'
	s_line=$(grep -E '^goheap-bpf: [0-9]+ process' "$1" | tail -1)
	[[ $s_line =~ $re ]] || return 1
	s_examined=${BASH_REMATCH[1]} s_notgo=${BASH_REMATCH[3]} s_results=${BASH_REMATCH[4]}
	s_loads=${BASH_REMATCH[5]} s_parsed=${BASH_REMATCH[8]}
}

sorted() { printf '%s\n' "$@" | sort -n | tr '\n' ' '; }

# ---- the main sweep ----

# The sweep's own process (timeout's child) once it sleeps in the pause.
wait_paused() {
	local i c
	for ((i = 0; i < 3000; i++)); do
		read -r c _ </proc/"$1"/task/"$1"/children 2>/dev/null
		case $(cut -d' ' -f1 /proc/"${c:-0}"/syscall 2>/dev/null) in
		230 | 35) tool=$c; return 0 ;; # clock_nanosleep, nanosleep
		esac
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.02
	done
	return 1
}

# reuse_pid PID: a new heapgen (reused's binary) as PID (ns_last_pid).
reuse_pid() {
	local i p
	next
	for ((i = 0; i < 20; i++)); do
		echo $(($1 - 1)) >/proc/sys/kernel/ns_last_pid || return 1
		HEAPGEN_RATE=$rate HEAPGEN_PROFILE=$out/own/reuser.pb.gz HEAPGEN_READY=$out/own/reuser.ready \
			"${exe_of[$reused]}" >/dev/null 2>&1 &
		p=$!
		keep "$p"
		[ "$p" = "$1" ] && return 0
		slay "$p"
	done
	return 1
}

main_sweep() {
	local t
	dir=$out/main
	swept=("${gopids[@]}" "$killed" "$reused" "${nongo[@]}")
	read -r want_bins sep_bins <<<"$("$check" binaries "${swept[@]}")"
	GOHEAP_TEST_PAUSE_MS=8000 timeout 300 "$bin" --all --pid "$(join "${swept[@]}")" -v \
		--output-dir "$dir" >"$out/main.table" 2>"$out/main.err" &
	t=$!
	keep "$t"
	wait_paused "$t" || die "the sweep never paused: $(grep -v libbpf "$out/main.err" | head -3)"
	keep "$tool"
	slay "$killed" "$reused"
	reuse_pid "$reused" && reuser=$reused || reuser=
	case $(cut -d' ' -f1 /proc/"$tool"/syscall 2>/dev/null) in
	230 | 35) ;;
	*) late=1 ;;
	esac
	wait "$t"
	main_st=$?
	[ -z "$reuser" ] || wait_file "$out/own/reuser.ready" "$reuser" || reuser=
	load_index || bad main "index.jsonl: $(head -c 300 "$dir.tsv")"
}

check_run() {
	local want=$((${#gopids[@]} + 2))
	if [ "$main_st" -ne 11 ]; then
		bad main-status "exit $main_st, want 11 (some failed): $(grep -v libbpf "$out/main.err" | head -3)"
	else
		ok "main-status (11: two of $want results failed)"
	fi
	if ! summary "$out/main.err"; then
		bad main-summary "no -v summary line"
	elif [ "$s_examined" != "${#swept[@]}" ] || [ "$s_notgo" != "${#nongo[@]}" ] ||
		[ "$s_results" != "$want" ] || [ "$s_loads" != 1 ]; then
		bad main-summary "want ${#swept[@]} examined (${#nongo[@]} not Go), $want results, 1 BPF load: $s_line"
	else
		ok "main-summary (${s_line#goheap-bpf: })"
	fi
	if [ "${s_parsed:-}" != "$want_bins" ]; then
		bad binaries-once "${s_parsed:-?} binaries parsed, want $want_bins (the distinct files mapped; parsed per process: $sep_bins)"
	else
		ok "binaries-once ($s_parsed parsed: the distinct files of ${#swept[@]} processes, $sep_bins if parsed per process)"
	fi
}

# profile_problem PID: what is wrong with PID's result; nothing when right.
profile_problem() {
	local p=$1 comm f
	comm=$(basename "${exe_of[$p]}" | cut -c1-15)
	[ -n "${ix_st[$p]:-}" ] || { echo "no index line"; return; }
	[ "${ix_st[$p]}" = complete ] || { echo "status ${ix_st[$p]}: ${ix_why[$p]}"; return; }
	f=${ix_file[$p]}
	[ "$f" = "$comm-$p.pb.gz" ] && [ -f "$dir/$f" ] || { echo "file '$f', want $comm-$p.pb.gz"; return; }
	[ "${ix_comm[$p]}" = "$comm" ] || echo "comm '${ix_comm[$p]}', want $comm"
	[ "${ix_go[$p]}" = "go${ver[$p]}" ] || echo "Go '${ix_go[$p]}', want go${ver[$p]}"
	[ "${ix_exe[$p]}" = "${exe_of[$p]}" ] || echo "exe '${ix_exe[$p]}', want ${exe_of[$p]}"
	[ "${ix_cg[$p]}" = "$(host_cgroup "$p")" ] || echo "cgroup '${ix_cg[$p]}', /proc/$p/cgroup: $(host_cgroup "$p")"
	[ "${ix_cid[$p]}|${ix_crt[$p]}|${ix_pod[$p]}" = "${cid[$p]:-}|${crt[$p]:-}|${pod[$p]:-}" ] ||
		echo "container '${ix_cid[$p]}|${ix_crt[$p]}|${ix_pod[$p]}', want '${cid[$p]:-}|${crt[$p]:-}|${pod[$p]:-}'"
	"$cmpprof" "${own[$p]}" "$dir/$f" >"$out/sum/$p.cmp" 2>&1 ||
		echo "not its own profile: $(head -3 "$out/sum/$p.cmp" | tr '\n' ' ')"
	"$cmpprof" -summary "${own[$p]}" >"$out/sum/own.$p.json" &&
		"$cmpprof" -summary "$dir/$f" >"$out/sum/ours.$p.json" || echo "cmpprof -summary failed"
}

check_profiles() {
	local p nbad=0
	for p in "${gopids[@]}"; do
		problem[$p]=$(profile_problem "$p")
		[ -z "${problem[$p]}" ] && continue
		nbad=$((nbad + 1))
		echo "    pid $p (${exe_of[$p]#"$PWD/"}): ${problem[$p]}" | head -5
	done
	if [ $nbad -eq 0 ]; then
		ok "profiles (${#gopids[@]} Go processes of Go ${rel[*]}: each file equals its own profile)"
	else
		bad profiles "$nbad of ${#gopids[@]} processes wrong (above)"
	fi
	# The hard kinds by name, from the same results.
	kind replicas "one binary, 20 processes" "${replicas[@]}"
	kind namespaced "own PID and mount namespaces, index cgroup = host's /proc/PID/cgroup" "${nspids[@]}"
	kind deleted "exe ${exe_of[${deleted[0]}]##*/} (deleted), ${exe_of[${deleted[2]}]##*/} (deleted)" "${deleted[@]}"
	kind c-shared "$(basename "$host") hosting Go ${ver[$hostpid]}" "$hostpid"
	kind docker "container ${dockerid:0:12}, runtime docker" "${replicas[@]:0:3}"
	kind kubepods "container ${kubeid:0:12}, pod $uid1" "${in_kube[@]}"
	kind containerd "container ${crid:0:12}, runtime containerd, pod $uid2" "${in_cri[@]}"
}

# kind NAME DETAIL PID...: PASS when each PID's result was right.
kind() {
	local name=$1 detail=$2 p wrong=
	shift 2
	for p in "$@"; do [ -z "${problem[$p]}" ] || wrong+=" $p"; done
	[ -z "$wrong" ] && ok "$name ($#: $detail)" || bad "$name" "wrong:$wrong (above)"
}

check_totals() {
	local why
	if why=$("$check" summaries "$dir/index.jsonl" "$out/sum"); then
		ok "totals-labels ($why)"
	else
		bad totals-labels "$(echo "$why" | head -5)"
	fi
}

check_killed() {
	local p=$killed why=
	[ "${ix_st[$p]:-}" = failed ] && [[ ${ix_why[$p]:-} == *exited* ]] ||
		why="index: '${ix_st[$p]:-no line}' '${ix_why[$p]:-}'"
	[ "$(grep -c "^goheap-bpf: pid $p " "$out/main.err")" = 1 ] &&
		grep -Eq "^goheap-bpf: pid $p \(heapgen\): .*exited" "$out/main.err" || why+=" not one stderr line saying so"
	[ -z "${ix_file[$p]:-}" ] && [ -z "$(find "$dir" -name "*-$p.pb.gz")" ] || why+=" a file was written"
	[ -z "$why" ] && ok "killed (pid $p: ${ix_why[$p]})" || bad killed "$why"
}

check_reused() {
	local p=$reused
	if [ -z "$reuser" ]; then
		bad reused "PID $p could not be given to a new process"
	elif [ -n "${late:-}" ]; then
		bad reused "the sweep resumed before PID $p was reused"
	elif [ -n "${ix_file[$p]:-}" ]; then
		# Read after all: then it must be the new process's profile.
		"$cmpprof" -summary "$out/own/reuser.pb.gz" >"$out/sum/own.$p.json"
		"$cmpprof" -summary "$dir/${ix_file[$p]}" >"$out/sum/ours.$p.json"
		if ! "$cmpprof" "$out/own/reuser.pb.gz" "$dir/${ix_file[$p]}" >/dev/null 2>&1; then
			bad reused "PID $p's file is not the new process's profile"
		elif "$cmpprof" "${own[$p]}" "$dir/${ix_file[$p]}" >/dev/null 2>&1; then
			bad reused "PID $p's file is the old process's profile"
		else
			ok "reused (pid $p: the new process's profile)"
		fi
	elif [ "${ix_st[$p]:-}" = failed ] && [[ ${ix_why[$p]} == *exited* ]] &&
		grep -Eq "^goheap-bpf: pid $p \(heapgen\): .*exited" "$out/main.err"; then
		ok "reused (pid $p: ${ix_why[$p]})"
	else
		bad reused "index '${ix_st[$p]:-no line}' '${ix_why[$p]:-}', stderr: $(grep "pid $p " "$out/main.err" | head -1)"
	fi
}

check_nongo_absent() {
	local p where=
	for p in "${nongo[@]}"; do
		[ -z "${ix_st[$p]:-}" ] || where+=" $p:index"
		awk -v p="$p" '$1 == p { f = 1 } END { exit !f }' "$out/main.table" && where+=" $p:table"
		[ -z "$(find "$dir" -name "*-$p.pb.gz")" ] || where+=" $p:file"
		grep -q "pid $p " "$out/main.err" && where+=" $p:stderr"
	done
	[ -z "$where" ] && ok "not-go (${#nongo[@]} processes in no output)" || bad not-go "found:$where"
}

check_dir() {
	local want got n
	want=$(for p in "${ix_pids[@]}"; do [ -n "${ix_file[$p]}" ] && echo "${ix_file[$p]}"; done | sort)
	got=$(cd "$dir" && ls -A | grep -vx index.jsonl | sort)
	n=$(grep -cE '^goheap-bpf: pid [0-9]+ go[0-9.]+ \(' "$out/main.err")
	if [ "$want" != "$got" ]; then
		bad dir "files other than the index names: $(diff <(echo "$want") <(echo "$got") | head -5 | tr '\n' ' ')"
	elif [ "$(sorted "${ix_pids[@]}")" != "$(sorted "${gopids[@]}" "$killed" "$reused")" ]; then
		bad dir "index PIDs are not the Go processes swept"
	elif [ "$n" != "$(echo "$want" | grep -c .)" ]; then
		bad dir "$n -v profile lines for $(echo "$want" | grep -c .) files"
	else
		ok "dir ($(echo "$want" | grep -c .) files + index.jsonl, one index line per Go process, one -v line per profile)"
	fi
}

check_table() {
	local why
	if why=$("$check" table "$out/main.table" "$dir/index.jsonl"); then
		ok "table ($why)"
	else
		bad table "$(echo "$why" | head -5)"
	fi
}

# ---- filters ----

# filter NAME NOTGO GONE WANT-PIDS... -- ARGS...: a sweep with ARGS must
# profile exactly WANT-PIDS (exit 0), having examined NOTGO processes
# that are not Go and GONE zombies besides.
filter() {
	local name=$1 notgo=$2 gone=$3 want=() st why p
	shift 3
	while [ "$1" != -- ]; do want+=("$1"); shift; done
	shift
	dir=$out/f-$name
	timeout 120 "$bin" --all -v --output-dir "$dir" "$@" >"$out/f-$name.table" 2>"$out/f-$name.err"
	st=$?
	load_index
	if [ $st -ne 0 ]; then
		bad "filter-$name" "exit $st: $(grep -v libbpf "$out/f-$name.err" | head -3)"
	elif [ "$(sorted "${ix_pids[@]}")" != "$(sorted "${want[@]}")" ]; then
		bad "filter-$name" "got PIDs $(sorted "${ix_pids[@]}"), want $(sorted "${want[@]}")"
	elif ! summary "$out/f-$name.err" || [ "$s_notgo" != "$notgo" ] ||
		[ "$s_examined" != $((${#want[@]} + notgo + gone)) ]; then
		bad "filter-$name" "want $((${#want[@]} + notgo + gone)) examined ($notgo not Go): ${s_line:-no summary}"
	elif why=$(for p in "${want[@]}"; do profile_problem "$p"; done) && [ -n "$why" ]; then
		bad "filter-$name" "$(echo "$why" | head -3)"
	else
		ok "filter-$name (${#want[@]} profiled, $notgo not Go$([ "$gone" = 0 ] || echo ", $gone zombie left out"): $*)"
	fi
}

check_filters() {
	local g=("${gopids[@]}")
	# --pid: a PID twice, two not Go, a zombie
	filter pid 2 1 "${g[0]}" "${g[30]}" "$hostpid" -- \
		--pid "${g[0]},${nongo[0]},${g[30]},$zombie,$hostpid,${g[30]},${nongo[8]}"
	filter comm 6 1 "${deleted[@]}" -- --comm "^$tag-(del|pause)"
	filter cgroup 1 0 "${replicas[@]:0:3}" "${in_kube[@]}" "${in_cri[@]}" -- --cgroup "$cgtop/"
	filter cgroup-pod 0 0 "${in_kube[@]}" -- --cgroup "$cgtop/kubepods/"
	# the same cgroup as a shell shows its directory, under the mount
	filter cgroup-dir 0 0 "${in_kube[@]}" -- --cgroup "$cgfs$cgtop/kubepods/"
	filter docker 1 0 "${replicas[@]:0:3}" -- --container "${dockerid:0:12}"
	filter kubepods 0 0 "${in_kube[@]}" -- --container "$kubeid"
	filter containerd 0 0 "${in_cri[@]}" -- --container "${crid:0:6}"
}

# ---- JSON Lines ----
check_jsonl() {
	local f=$out/jsonl.out st why
	timeout 120 "$bin" --all --pid "$(join "${gopids[@]}" "${nongo[@]}")" --format jsonl --top 3 \
		>"$f" 2>"$out/jsonl.err"
	st=$?
	dir=$out/main
	if [ $st -ne 0 ]; then
		bad jsonl "exit $st: $(grep -v libbpf "$out/jsonl.err" | head -3)"
	elif ! why=$("$check" jsonl "$f" 3); then
		bad jsonl "$(echo "$why" | head -3)"
	elif ! "$check" tsv "$f" pid totals >"$f.tsv" ||
		! "$check" tsv "$dir/index.jsonl" pid totals >"$out/totals.tsv"; then
		bad jsonl "not JSON Lines: $(head -c 300 "$f.tsv")"
	elif [ "$(cut -d$'\x1f' -f1 "$f.tsv" | sort -n)" != "$(printf '%s\n' "${gopids[@]}" | sort -n)" ]; then
		bad jsonl "documents are not one per Go process"
	elif [ "$(sort -n "$f.tsv")" != "$(grep -vE "^($killed|$reused)"$'\x1f' "$out/totals.tsv" | sort -n)" ]; then
		bad jsonl "totals differ from the main sweep's index"
	else
		ok "jsonl ($(wc -l <"$f") lines, each one document, at most 3 entries, totals as the index)"
	fi
}

# ---- the GOROUTINES column ----

# gogrow_count DIR: the "goroutines N steps S" its target wrote last.
gogrow_count() { cat "$1/count" 2>/dev/null; }

# goroutines_problem TABLE PID=WANT...: what is wrong with TABLE's
# GOROUTINES cells; nothing when each PID's is WANT and the total row
# their sum.
goroutines_problem() {
	local table=$1 pw sum=0
	shift
	for pw in "$@"; do
		[ "${pw#*=}" = - ] || sum=$((sum + ${pw#*=}))
	done
	awk -v want="$*" -v sum="$sum" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == "GOROUTINES") col = i
			  if (!col) { print "no GOROUTINES column"; exit }
			  n = split(want, w, " ")
			  for (i = 1; i <= n; i++) { split(w[i], kv, "="); want_of[kv[1]] = kv[2] }
			  next }
		$1 == "total" { if ($col != sum) print "total " $col ", want " sum; next }
		$1 in want_of { if ($col != want_of[$1]) print "pid " $1 ": " $col ", want " want_of[$1]; seen[$1] = 1 }
		END { for (p in want_of) if (!(p in seen)) print "no row for pid " p }
	' "$table"
}

check_goroutines() {
	local v=${rel[3]} d=$out/gogrow g=() dirs=() n p i st why want=() line
	goroot=$(tools/go-toolchains.sh goroot "$v") || die "no Go $v toolchain"
	for m in exe exe-stripped; do
		mkdir -p "build/targets/$v/$m"
		tests/targets/build.sh gogrow "$m" "$goroot" "build/targets/$v/$m/gogrow" \
			>"build/targets/$v/$m/gogrow.log" 2>&1 || die "building gogrow ($m) failed"
	done
	i=0
	for n in 10 37 200 5; do
		mkdir -p "$d/$i"
		m=exe
		[ $i = 3 ] && m=exe-stripped
		GOGROW_DIR=$d/$i GOGROW_START=$n "build/targets/$v/$m/gogrow" >/dev/null 2>&1 &
		keep $!
		g+=($!)
		dirs+=("$d/$i")
		i=$((i + 1))
	done
	for i in "${!g[@]}"; do wait_file "${dirs[$i]}/port" "${g[$i]}" || die "gogrow did not start"; done
	for round in 0 1; do
		want=()
		for i in 0 1 2; do
			read -r _ n _ <<<"$(gogrow_count "${dirs[$i]}")"
			want+=("${g[$i]}=$n")
		done
		want+=("${g[3]}=-")
		timeout 60 "$bin" --all --pid "$(join "${g[@]}")" >"$out/goroutines$round.table" 2>"$out/goroutines$round.err"
		st=$?
		why=$(goroutines_problem "$out/goroutines$round.table" "${want[@]}")
		if [ $st -ne 0 ]; then
			bad "goroutines-$round" "exit $st: $(grep -v libbpf "$out/goroutines$round.err" | head -2)"
		elif [ -n "$why" ]; then
			bad "goroutines-$round" "$(echo "$why" | head -3 | tr '\n' ' ')"
		else
			ok "goroutines-$round (GOROUTINES = each one's runtime.NumGoroutine(): ${want[*]}, total their sum)"
		fi
		[ $round = 1 ] && break
		kill -USR1 "${g[1]}"
		for ((i = 0; i < 100; i++)); do
			line=$(gogrow_count "${dirs[1]}")
			[[ $line == *"steps 1" ]] && break
			sleep 0.05
		done
	done
	slay "${g[@]}"
}

# ---- other profiles: block, mutex, goroutine ----

# What the runtime adds on its own between a contend's profile and ours
# (the mutex profile: its own locks, blockmutex.sh's runtime_locks; the
# block profile: a GC cycle starting its mark workers waits on a
# channel), and what only a goroutine target's own profile holds
# (goroutines.sh's SERVING_FUNCS).
runtime_locks=runtime._LostContendedRuntimeLock,runtime.unlock
serving='runtime/pprof.writeGoroutine,net/http.(*connReader).backgroundRead,net/http.(*connReader).startBackgroundRead'

# kinds_start: for each release of kinds_rel, a contend stopped
# contending (kc, kcdir) and a goroutines target (kg, kgport); kh a
# heapgen of the crowd.
kinds_start() {
	local v goroot t i=0
	kc=() kcdir=() kg=() kgport=()
	for v in "${kinds_rel[@]}"; do
		goroot=$(tools/go-toolchains.sh goroot "$v") || die "no Go $v toolchain"
		for t in contend goroutines; do
			mkdir -p "build/targets/$v/exe"
			tests/targets/build.sh $t exe "$goroot" "build/targets/$v/exe/$t" \
				>"build/targets/$v/exe/$t.log" 2>&1 || die "building $t with Go $v failed"
		done
		mkdir -p "$out/kinds/c$i" "$out/kinds/g$i"
		CONTEND_DIR=$out/kinds/c$i "build/targets/$v/exe/contend" >"$out/kinds/c$i.log" 2>&1 &
		keep $!
		kc+=($!) kcdir+=("$out/kinds/c$i")
		GOROUTINES_READY=$out/kinds/g$i/ready "build/targets/$v/exe/goroutines" >"$out/kinds/g$i.log" 2>&1 &
		keep $!
		kg+=($!)
		i=$((i + 1))
	done
	for i in "${!kc[@]}"; do
		wait_file "${kcdir[$i]}/ready" "${kc[$i]}" || die "contend did not start"
		wait_file "$out/kinds/g$i/ready" "${kg[$i]}" || die "goroutines did not start"
		kgport+=("$(cat "$out/kinds/g$i/ready")")
	done
	sleep 0.3 # some contention
	for i in "${!kc[@]}"; do
		touch "${kcdir[$i]}/stop"
		wait_file "${kcdir[$i]}/stopped" "${kc[$i]}" || die "contend did not stop"
	done
	kh=${gopids[0]}
}

# kinds_ask N: every contend writes its own block-N and mutex-N profiles.
kinds_ask() {
	local i
	for i in "${!kc[@]}"; do touch "${kcdir[$i]}/req-$1"; done
	for i in "${!kc[@]}"; do
		wait_file "${kcdir[$i]}/done-$1" "${kc[$i]}" || die "contend wrote no profile $1"
	done
}

# kinds_sweep NAME ARGS...: a sweep of the kinds' targets into
# $out/kinds/NAME (its directory, .table, .err); sets st.
kinds_sweep() {
	local name=$1
	shift
	timeout 120 "$bin" --all --pid "$(join "${kc[@]}" "${kg[@]}" "$kh")" "$@" \
		>"$out/kinds/$name.table" 2>"$out/kinds/$name.err"
	st=$?
}

# ix_of DIR PID KEY: KEY of PID's line in DIR/index.jsonl.
ix_of() {
	"$check" tsv "$1/index.jsonl" pid "$3" | awk -F$'\x1f' -v p="$2" '$1 == p { print $2 }'
}

# disabled_problem K PID CALL: what is wrong with PID's result in the
# K sweep; nothing when it says the profile is off.
disabled_problem() {
	local d=$out/kinds/$1 p=$2 call=$3
	[ "$(ix_of "$d" "$p" status)" = unavailable ] || echo "pid $p: index status $(ix_of "$d" "$p" status)"
	[[ $(ix_of "$d" "$p" status_reason) == *"runtime.$call"* ]] || echo "pid $p: index reason does not name runtime.$call"
	[ -z "$(ix_of "$d" "$p" file)" ] || echo "pid $p: a file was written"
	awk -v p="$p" '$1 == p && $NF == "disabled" { f = 1 } END { exit !f }' "$d.table" ||
		echo "pid $p: no disabled row"
	[ "$(grep -c "^goheap-bpf: pid $p (.*runtime.$call" "$d.err")" = 1 ] || echo "pid $p: not one stderr line naming runtime.$call"
}

check_kinds_contention() {
	local k i p call why f d drop
	kinds_ask 1
	kinds_sweep block --profile block -d "$out/kinds/block"
	st_block=$st
	kinds_sweep mutex --profile mutex -d "$out/kinds/mutex"
	st_mutex=$st
	kinds_ask 2
	for k in block mutex; do
		d=$out/kinds/$k
		call=SetBlockProfileRate drop=(-dropstack runtime.gcBgMarkStartWorkers)
		[ $k = mutex ] && call=SetMutexProfileFraction drop=(-drop "$runtime_locks")
		eval "st=\$st_$k"
		why=
		[ "$st" = 11 ] || why="exit $st, want 11: $(head -2 "$d.err")"
		for i in "${!kc[@]}"; do
			f=$d/$(ix_of "$d" "${kc[$i]}" file)
			[ -f "$f" ] || { why+=" pid ${kc[$i]}: no file"; continue; }
			"$cmpprof" "${drop[@]}" "${kcdir[$i]}/$k-1.pb.gz" "$f" >"$f.cmp" 2>&1 &&
				"$cmpprof" -bracket "${kcdir[$i]}/$k-1.pb.gz" "$f" "${kcdir[$i]}/$k-2.pb.gz" >>"$f.cmp" 2>&1 ||
				why+=" pid ${kc[$i]} (go${kinds_rel[$i]}): not its own profile: $(grep -v '^cmpprof:' "$f.cmp" | head -2 | tr '\n' ' ')"
		done
		for p in "${kg[@]}" "$kh"; do why+=$(disabled_problem $k "$p" "$call"); done
		[ -z "$why" ] && ok "kinds-$k (${#kc[@]} contend equal to their own, $((${#kg[@]} + 1)) disabled rows; exit 11)" ||
			bad "kinds-$k" "$why"
		if why=$("$check" kindtable $k delay "$d.table" "$d/index.jsonl"); then
			ok "kinds-$k-table ($why)"
		else
			bad "kinds-$k-table" "$(echo "$why" | head -3)"
		fi
	done
	d=$out/kinds/mutex-contentions
	kinds_sweep mutex-contentions --profile mutex --sample-index contentions -d "$d"
	if why=$("$check" kindtable mutex contentions "$d.table" "$d/index.jsonl"); then
		ok "kinds-mutex-contentions-table ($why)"
	else
		bad "kinds-mutex-contentions-table" "$(echo "$why" | head -3)"
	fi
}

check_kinds_goroutine() {
	local d=$out/kinds/goroutine i f why= url
	kinds_sweep goroutine --profile goroutine -d "$d"
	[ "$st" = 0 ] || why="exit $st: $(head -2 "$d.err")"
	for i in "${!kg[@]}"; do
		f=$d/$(ix_of "$d" "${kg[$i]}" file)
		[ -f "$f" ] || { why+=" pid ${kg[$i]}: no file"; continue; }
		url=http://127.0.0.1:${kgport[$i]}/debug/pprof/goroutine
		# After a first request, as goroutines.sh's theirs (the
		# accepting goroutine parked again).
		curl -sf -o /dev/null "$url?debug=1" -o "$f.own" "$url?debug=0" || { why+=" pid ${kg[$i]}: its endpoint did not answer"; continue; }
		"$cmpprof" -dropstack "$serving" "$f.own" "$f" >"$f.cmp" 2>&1 ||
			why+=" pid ${kg[$i]} (go${kinds_rel[$i]}): not its own profile: $(grep -v '^cmpprof:' "$f.cmp" | head -2 | tr '\n' ' ')"
	done
	[ -z "$why" ] && ok "kinds-goroutine (${#kg[@]} goroutine targets equal to their own /debug/pprof/goroutine)" ||
		bad kinds-goroutine "$why"
	if why=$("$check" kindtable goroutine goroutine "$d.table" "$d/index.jsonl"); then
		ok "kinds-goroutine-table ($why)"
	else
		bad kinds-goroutine-table "$(echo "$why" | head -3)"
	fi
	kinds_sweep goroutine-jsonl --profile goroutine -f jsonl
	"$check" tsv "$out/kinds/goroutine-jsonl.table" pid kind status | sort >"$d.jsonl.tsv"
	"$check" tsv "$d/index.jsonl" pid kind status | sort >"$d.index.tsv"
	if [ "$st" = 0 ] && [ -s "$d.jsonl.tsv" ] && cmp -s "$d.jsonl.tsv" "$d.index.tsv"; then
		ok "kinds-goroutine-jsonl ($(wc -l <"$d.jsonl.tsv") documents, kind and status as the index)"
	else
		bad kinds-goroutine-jsonl "exit $st; $(diff "$d.jsonl.tsv" "$d.index.tsv" | head -3 | tr '\n' ' ')"
	fi
}

# --profile allocs: each goroutines target's file equals its own
# /debug/pprof/allocs, default sample type (alloc_space) included. An
# idle target's published counters move only with a GC cycle: the
# profile its endpoint wrote just before, or just after.
check_kinds_allocs() {
	local d=$out/kinds/allocs i f why= url
	for i in "${!kg[@]}"; do
		curl -sf -o "$d.own$i" "http://127.0.0.1:${kgport[$i]}/debug/pprof/allocs" ||
			why+=" pid ${kg[$i]}: its endpoint did not answer"
	done
	kinds_sweep allocs --profile allocs -d "$d"
	[ "$st" = 0 ] || why+=" exit $st: $(head -2 "$d.err")"
	for i in "${!kg[@]}"; do
		f=$d/$(ix_of "$d" "${kg[$i]}" file)
		[ -f "$f" ] || { why+=" pid ${kg[$i]}: no file"; continue; }
		url=http://127.0.0.1:${kgport[$i]}/debug/pprof/allocs
		"$cmpprof" "$d.own$i" "$f" >"$f.cmp" 2>&1 ||
			{ curl -sf -o "$f.own" "$url" && "$cmpprof" "$f.own" "$f" >>"$f.cmp" 2>&1; } ||
			why+=" pid ${kg[$i]} (go${kinds_rel[$i]}): not its own: $(grep -v '^cmpprof:' "$f.cmp" | head -2 | tr '\n' ' ')"
	done
	[ -z "$why" ] && ok "kinds-allocs (${#kg[@]} targets' files equal to their own /debug/pprof/allocs, alloc_space by default)" ||
		bad kinds-allocs "$why"
}

check_kinds() {
	kinds_start
	check_kinds_contention
	check_kinds_goroutine
	check_kinds_allocs
	slay "${kc[@]}" "${kg[@]}"
}

# ---- run ----
start_crowd
wait_crowd
setup_cgroups
populate_cgroups
echo "sweep: ${#gopids[@]} Go processes (+2 for the pause), ${#nongo[@]} not Go, Go ${rel[*]} ($(($(date +%s) - t0)) s)"
[ ${#gopids[@]} -ge 60 ] && [ ${#nongo[@]} -ge 20 ] || die "the crowd is too small"
main_sweep
check_run
check_profiles
check_killed
check_reused
check_totals
check_nongo_absent
check_dir
check_table
check_jsonl
check_filters
check_goroutines
check_kinds
echo "sweep: $(($(date +%s) - t0)) s"
echo "sweep: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
