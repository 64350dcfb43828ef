#!/usr/bin/env bash
# hard.sh - goheap-bpf's end-to-end tests of hard targets, for every
# supported Go release at MemProfileRate 4096: the target (tests/targets/
# heapgen, built in several ways) writes its own heap profile with
# runtime/pprof and idles; goheap-bpf reads the same process from outside
# and must produce the same profile (cmpprof: samples and mappings).
#
#   cgo        cgo, internally linked executable
#   cgo-pie    cgo, PIE linked by gcc (-linkmode=external)
#   cshared    a C program (tests/targets/cshared/host.c) hosting heapgen
#              built with -buildmode=c-shared
#   cshared2   the host with two Go libraries: this release's and the next
#              one's (the list wraps); each runtime is compared with its own
#              profile (--runtime FILE), and without --runtime both are
#              written (FILE, FILE.2)
#   ns         heapgen in its own mount and PID namespace (unshare), its
#              binary only on a tmpfs mounted inside; the JSON must carry
#              the process's cgroup as /proc/PID/cgroup gives it
#   replaced   heapgen whose binary was replaced on disk after it started
#              (the old file is deleted: " (deleted)" in its maps)
#
#   tests/integration/hard.sh BIN
#
# Needs root: BPF, namespaces and mounts. Targets are built 2 at a time and
# cached under build/targets/<version>/<mode>/ (tests/targets/build.sh);
# each case keeps its files under build/hard/<case>/. Environment:
# GO_VERSIONS="1.21.13 1.27.4" limits the releases, CASES="ns cshared"
# the cases. Prints
# "hard: N passed, N failed"; exits non-zero when a case failed.
set -uo pipefail

NAME=hard
. "$(dirname "$0")/lib.sh"
setup "$@"
command -v gcc >/dev/null || die "no gcc (cgo and the C host need it)"
command -v unshare >/dev/null || die "no unshare (util-linux)"
out=$PWD/build/hard
mkdir -p "$out"
start=$(date +%s)

# ---- targets ----
build_targets exe cgo cgo-pie-ext c-shared
build_host
echo "hard: targets built ($(($(date +%s) - start)) s)"

build_cmpprof "$out"

# ---- cases ----
# Processes to kill after each case. The namespace's tmpfs goes with its
# mount namespace.
pids=()
trap 'stop_all' EXIT
trap 'exit 130' INT TERM

stop_all() {
	local p
	for p in "${pids[@]}"; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	pids=()
}

# heapgen_env NAME: the environment of a heapgen run writing into $dir.
heapgen_env() {
	echo "HEAPGEN_RATE=4096 HEAPGEN_PROFILE=$dir/$1.pb.gz HEAPGEN_READY=$dir/$1.ready"
}

# exe_case MODE: heapgen built in MODE, run directly.
exe_case() {
	# shellcheck disable=SC2046
	env $(heapgen_env theirs) "build/targets/$v/$1/heapgen" >"$dir/target.log" 2>&1 &
	target=$!
	pids+=("$target")
	wait_file "$dir/theirs.ready" "$target" || { echo "    target not ready: $(tail -3 "$dir/target.log")"; return 1; }
	compare "$dir/theirs.pb.gz" "$dir/ours.pb.gz" pprof
}

lib_of() { echo "build/targets/$1/c-shared/heapgen"; }

cshared_case() {
	local lib
	lib=$(realpath "$(lib_of "$v")")
	HEAPGEN_RATE=4096 "$host" "$dir/host.ready" "$lib" "$dir/theirs.pb.gz" "$dir/theirs.ready" \
		>"$dir/target.log" 2>&1 &
	target=$!
	pids+=("$target")
	wait_file "$dir/host.ready" "$target" || { echo "    host not ready: $(tail -3 "$dir/target.log")"; return 1; }
	compare "$dir/theirs.pb.gz" "$dir/ours.pb.gz" pprof
}

cshared2_case() {
	local a b ok=0 f g found
	a=$(realpath "$(lib_of "$v")")
	b=$(realpath "$(lib_of "$next")")
	# Two distinct files even when the list has one release.
	cp "$b" "$dir/libnext.so" && b=$dir/libnext.so
	HEAPGEN_RATE=4096 "$host" "$dir/host.ready" "$a" "$dir/a.pb.gz" "$dir/a.ready" \
		"$b" "$dir/b.pb.gz" "$dir/b.ready" >"$dir/target.log" 2>&1 &
	target=$!
	pids+=("$target")
	wait_file "$dir/host.ready" "$target" || { echo "    host not ready: $(tail -3 "$dir/target.log")"; return 1; }
	compare "$dir/a.pb.gz" "$dir/ours-a.pb.gz" "runtime-a" --runtime "$a" || ok=1
	compare "$dir/b.pb.gz" "$dir/ours-b.pb.gz" "runtime-b" --runtime "$b" || ok=1
	# Without --runtime: both profiles, FILE and FILE.2, one per library.
	if ! timeout 120 "$bin" --pid "$target" --format pprof --output "$dir/all.pb.gz" 2>"$dir/all.err"; then
		echo "    all runtimes: exit $?: $(head -c 400 "$dir/all.err")"
		return 1
	fi
	for f in "$dir/all.pb.gz" "$dir/all.pb.gz.2"; do
		found=
		for g in a b; do
			"$cmpprof" "$dir/$g.pb.gz" "$f" >/dev/null 2>&1 && found=$g
		done
		[ -n "$found" ] || { echo "    $f equals neither library's own profile"; ok=1; }
	done
	[ ! -e "$dir/all.pb.gz.3" ] || { echo "    a third profile was written"; ok=1; }
	return $ok
}

# The target's host PID: the child of unshare --fork once it runs heapgen
# (unshare may have short-lived helper children; sh execs heapgen).
heapgen_child_of() {
	local i c
	for ((i = 0; i < 200; i++)); do
		for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
			[ "$(cat /proc/"$c"/comm 2>/dev/null)" = heapgen ] && echo "$c" && return 0
		done
		sleep 0.05
	done
	return 1
}

ns_case() {
	local exe want got st ushare
	exe=$(realpath "build/targets/$v/exe/heapgen")
	mkdir -p "$dir/ns"
	# shellcheck disable=SC2016,SC2046
	env $(heapgen_env theirs) unshare --mount --pid --fork --propagation private sh -c '
		mount -t tmpfs tmpfs "$1" && cp "$2" "$1/heapgen" && exec "$1/heapgen"' \
		sh "$dir/ns" "$exe" >"$dir/target.log" 2>&1 &
	ushare=$!
	pids+=("$ushare")
	target=$(heapgen_child_of "$ushare") || { echo "    no process inside the namespace"; return 1; }
	pids+=("$target")
	if ! wait_file "$dir/theirs.ready" "$target"; then
		kill -0 "$ushare" 2>/dev/null || { wait "$ushare"; echo "    unshare exited with status $?"; }
		echo "    target $target not ready: $(tail -3 "$dir/target.log")"
		return 1
	fi
	if [ -e "$dir/ns/heapgen" ]; then
		echo "    the binary is visible outside the namespace"
		return 1
	fi
	if [ "$(readlink /proc/"$target"/ns/pid)" = "$(readlink /proc/self/ns/pid)" ]; then
		echo "    the target shares our PID namespace"
		return 1
	fi
	compare "$dir/theirs.pb.gz" "$dir/ours.pb.gz" pprof || return 1
	timeout 120 "$bin" --pid "$target" --format json --top 1 >"$dir/ours.json" 2>"$dir/json.err"
	st=$?
	[ $st -eq 0 ] || { echo "    --format json: exit $st: $(head -c 300 "$dir/json.err")"; return 1; }
	# The kernel's answer: the v2 line, or the v1 memory controller's.
	want=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { v1 = $3 } $1 == "0" && $2 == "" { v2 = $3 }
		END { print (v1 != "" ? v1 : v2) }' /proc/"$target"/cgroup)
	got=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cgroup"])' "$dir/ours.json" 2>&1)
	if [ -z "$want" ] || [ "$got" != "$want" ]; then
		echo "    JSON cgroup \"$got\", /proc/$target/cgroup says \"$want\""
		return 1
	fi
	echo "    json: cgroup $got"
}

replaced_case() {
	cp "build/targets/$v/exe/heapgen" "$dir/heapgen"
	# shellcheck disable=SC2046
	env $(heapgen_env theirs) "$dir/heapgen" >"$dir/target.log" 2>&1 &
	target=$!
	pids+=("$target")
	wait_file "$dir/theirs.ready" "$target" || { echo "    target not ready: $(tail -3 "$dir/target.log")"; return 1; }
	# Another program takes the path; the old file is gone.
	cp "build/targets/$v/cgo/heapgen" "$dir/heapgen.new" && mv -f "$dir/heapgen.new" "$dir/heapgen"
	if ! grep -q "heapgen (deleted)" /proc/"$target"/maps; then
		echo "    the target's maps do not show its binary as deleted"
		return 1
	fi
	compare "$dir/theirs.pb.gz" "$dir/ours.pb.gz" pprof
}

pass=0 fail=0
read -r -a cases <<<"${CASES:-cgo cgo-pie cshared cshared2 ns replaced}"
run() { # NAME FUNCTION [ARGS...]
	local name=$1 st t0 ms
	shift
	[[ " ${cases[*]} " == *" $name "* ]] || return 0
	dir=$out/$v-$name
	rm -rf "$dir"
	mkdir -p "$dir"
	t0=$(date +%s%N)
	"$@" >"$out/report"
	st=$?
	stop_all
	ms=$((($(date +%s%N) - t0) / 1000000))
	if [ $st -eq 0 ]; then
		pass=$((pass + 1))
		echo "PASS go$v $name ($ms ms)"
	else
		fail=$((fail + 1))
		echo "FAIL go$v $name ($ms ms; files in build/hard/$v-$name)"
	fi
	cat "$out/report"
}

for i in "${!versions[@]}"; do
	v=${versions[$i]}
	next=${versions[$(((i + 1) % ${#versions[@]}))]}
	run cgo exe_case cgo
	run cgo-pie exe_case cgo-pie-ext
	run cshared cshared_case
	run cshared2 cshared2_case
	run ns ns_case
	run replaced replaced_case
done
echo "hard: $(($(date +%s) - start)) s"
echo "hard: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
