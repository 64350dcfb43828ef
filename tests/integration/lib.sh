# lib.sh - what the integration scripts share. Source it with NAME set to
# the script's name (it prefixes every message), then call setup "$@".
#
# setup BIN: checks the arguments and root, moves to the repository's top,
# and sets bin (the goheap-bpf binary), hostgo (a go >= 1.21 for the
# comparator and go tool pprof) and versions (GO_VERSIONS, or every
# supported release).

die() {
	echo "$NAME: $*" >&2
	exit 1
}

setup() {
	[ $# -eq 1 ] || die "usage: $(basename "$0") BIN"
	bin=$(realpath -e "$1" 2>/dev/null) || die "no binary $1; build it with make"
	cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
	[ "$(id -u)" -eq 0 ] ||
		die "needs root (BPF: CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE; namespaces): run it with sudo"
	if command -v go >/dev/null; then hostgo=$(command -v go); else hostgo=/usr/local/go/bin/go; fi
	[ -x "$hostgo" ] || die "no host go (>= 1.21) for cmpprof and go tool pprof"
	read -r -a versions <<<"${GO_VERSIONS:-$(tools/go-toolchains.sh list | tr '\n' ' ')}"
}

# build_cmpprof DIR: build the comparator (github.com/google/pprof/profile)
# into DIR/cmpprof and set cmpprof to it.
build_cmpprof() {
	cmpprof=$1/cmpprof
	(cd tests/integration/cmpprof && "$hostgo" build -o "$cmpprof" .) ||
		die "cmpprof did not build"
}

# build_benchgen DIR: tools/bench/benchgen built by the newest release into
# DIR/benchgen; sets benchgen to it.
build_benchgen() {
	local goroot
	benchgen=$1/benchgen
	goroot=$(tools/go-toolchains.sh goroot "$(tools/go-toolchains.sh list | tail -1)") ||
		die "no Go toolchain for benchgen"
	(cd tools/bench/benchgen && GOTOOLCHAIN=local GOFLAGS= CGO_ENABLED=0 \
		"$goroot/bin/go" build -o "$benchgen" .) || die "building benchgen failed"
}

# build_host: the C program that hosts Go c-shared libraries
# (tests/targets/cshared/host.c) built into build/targets/host/host, once
# per source; sets host to it.
build_host() {
	local src=tests/targets/cshared/host.c
	host=build/targets/host/host
	mkdir -p "$(dirname "$host")"
	if [ "$(cat "$host.stamp" 2>/dev/null)" != "$(sha256sum <"$src")" ]; then
		gcc -O2 -Wall -Wextra -Werror -o "$host" "$src" -ldl -lpthread ||
			die "building the C host failed"
		sha256sum <"$src" >"$host.stamp"
	fi
}

# build_targets MODE...: heapgen built by every release in versions in each
# MODE of tests/targets/build.sh, two at a time, into
# build/targets/<version>/<mode>/heapgen (cached by build.sh's stamps).
build_targets() {
	local v m list=build/targets/$NAME.builds
	mkdir -p build/targets
	: >"$list"
	for v in "${versions[@]}"; do
		goroot=$(tools/go-toolchains.sh goroot "$v") || die "no Go $v toolchain"
		for m in "$@"; do echo "$v $m $goroot $NAME" >>"$list"; done
	done
	# One line per build; a failed build prints its log and fails xargs.
	# shellcheck disable=SC2016
	xargs -P 2 -L 1 sh -c '
		dir=build/targets/$0/$1
		mkdir -p "$dir"
		tests/targets/build.sh heapgen "$1" "$2" "$dir/heapgen" >"$dir/build.log" 2>&1 ||
			{ echo "$3: building heapgen with Go $0 ($1) failed:"; cat "$dir/build.log"; exit 1; }
	' <"$list" || die "target builds failed"
}

# wait_file FILE PID: wait (60 s at most) for FILE while PID lives.
wait_file() {
	local i
	for ((i = 0; i < 600; i++)); do
		[ -e "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# serve_port LOG PID: the port goheap-bpf serve (process PID, its stderr
# in LOG) listens on, printed once it says so (30 s at most); 1 when it
# never does.
serve_port() {
	local i p
	for ((i = 0; i < 300; i++)); do
		p=$(sed -n 's|^goheap-bpf: serving on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$1")
		[ -n "$p" ] && echo "$p" && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# await FILE: a target wrote it (5 s at most); prints and removes it.
await() {
	local i
	for i in $(seq 500); do
		[ -s "$1" ] && { cat "$1"; rm -f "$1"; return 0; }
		sleep 0.01
	done
	return 1
}

# churn_gc PID PROFILE: the GC count of tests/targets/churn (PID, run
# with CHURN_PROFILE=PROFILE) now.
churn_gc() {
	kill -USR2 "$1"
	await "$2.gc0"
}

# churn_settle PID PROFILE: wait (up to about 90 s) for churn's second GC.
# Until a cycle has published something (mallocs reach a profile two
# cycles after they happen) the runtime publishes every future cycle,
# allocations of the moment included, and the first of its own reads
# moves them into what it publishes (mprof.go's "absolutely no data"):
# when the second GC does not come, the target makes that read, not
# compared, and the reads after it hold still until a GC.
churn_settle() {
	local g i
	for i in $(seq 900); do
		g=$(churn_gc "$1" "$2") || return 1
		[ "$g" -ge 2 ] && return 0
		sleep 0.1
	done
	kill -USR1 "$1"
	await "$2.gc" >/dev/null || return 1
	rm -f "$2"
}

# verdict NAME WHY: a check's result, counted in pass and fail; WHY empty
# means passed. On a failure, the first lines of $out/NAME.err, if there
# is one.
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

# kill_target: the process $target, if any, killed and reaped; the
# matrix scripts' exit trap and end of each case.
kill_target() {
	if [ -n "${target:-}" ]; then
		kill -9 "$target" 2>/dev/null
		wait "$target" 2>/dev/null
	fi
	target=
}

# timed_case LABEL FILES CMD...: CMD run, its report (stdout) kept in
# $out/report and shown after one PASS or FAIL line for LABEL with the
# time it took (FILES named on a failure); counts in pass and fail.
timed_case() {
	local label=$1 files=$2 t0 st ms
	shift 2
	t0=$(date +%s%N)
	"$@" >"$out/report"
	st=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	if [ $st -eq 0 ]; then
		pass=$((pass + 1))
		echo "PASS $label ($ms ms)"
	else
		fail=$((fail + 1))
		echo "FAIL $label ($ms ms; files in $files)"
	fi
	cat "$out/report"
}

# run_matrix LABEL FILES: run_case VERSION MODE RATE (the caller's) for
# every version, mode and rate, one timed_case each (LABEL after the
# case, FILES/VERSION-MODE-RATE named on a failure).
run_matrix() {
	local v m rate
	for v in "${versions[@]}"; do
		for m in "${modes[@]}"; do
			for rate in "${rates[@]}"; do
				timed_case "go$v $m rate=$rate $1" "$2/$v-$m-$rate" \
					run_case "$v" "$m" "$rate"
			done
		done
	done
}

# compare THEIRS OURS NAME [ARGS...]: run BIN --format pprof on process
# $target with ARGS into OURS and compare it with THEIRS (files of this
# check under $dir/NAME.*). Reasons go to stdout, indented; 1 on a
# difference.
compare() {
	local theirs=$1 ours=$2 name=$3 st
	shift 3
	timeout 120 "$bin" --pid "$target" --format pprof --output "$ours" "$@" 2>"$dir/$name.err"
	st=$?
	if [ $st -ne 0 ]; then
		echo "    $name: exit $st: $(head -c 400 "$dir/$name.err")"
		return 1
	fi
	if ! "$cmpprof" "$theirs" "$ours" >"$dir/$name.cmp" 2>&1; then
		echo "    $name:"
		sed 's/^/    /' "$dir/$name.cmp" | head -30
		return 1
	fi
	tail -1 "$dir/$name.cmp" | sed "s/^/    $name: /"
}
