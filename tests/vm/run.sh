#!/usr/bin/env bash
# run.sh - make vmtest: the kernel matrix (issue 15). Boots Debian's own
# kernels (tests/vm/kernels: bullseye 5.10, bookworm 6.1, trixie 6.12, the
# newest in sid, bookworm's arm64 6.1) under qemu, each VM sharing the
# host's / read-only, runs the cases of tests/vm/cases.sh in it
# (guest.sh) with the release build, judges them on the host (judge.sh)
# and prints a kernel x case matrix and "N passed, N failed". A VM that
# does not boot, panics or hangs past its time limit is a failing case
# (its console's last lines shown), never a hang. Files: build/vm/ (the
# kernels, initramfs, targets), build/vm/results/KERNEL/ (each case's
# files, console.log); the .debs are cached in GOHEAP_VM_CACHE.
#
#   tests/vm/run.sh [BIN]          (needs root; BIN: build/rel/goheap-bpf)
#
# Environment: VM_KERNELS="bookworm sid" runs those alone; VM_CASES=REGEX
# only the cases it matches; VM_JOBS VMs at once (2); VM_SMP CPUs each (1
# when two VMs run at once, else 2); VM_TIMEOUT seconds per VM (420, some
# 7 times what one takes here); VM_ACCEL=tcg skips the KVM try (kvm forces
# it); ARM64_BIN the arm64 build (build/arm64/goheap-bpf, make ARCH=arm64).
set -uo pipefail
cd "$(dirname "$0")/../.."
# Each VM chroots into the host's / with a tmpfs of its own on /tmp
# (init.sh): a checkout under /tmp is out of its sight.
case $PWD/ in /tmp/*)
	echo "vm: the checkout $PWD is under /tmp, which each VM mounts a tmpfs over: clone it elsewhere" >&2
	exit 2 ;;
esac
die() {
	echo "vm: $*" >&2
	exit 1
}
[ "$(id -u)" -eq 0 ] || die "needs root (the VMs read the host's whole / over 9p and run BPF as root): run it with sudo"
bin=$(realpath -e "${1:-build/rel/goheap-bpf}" 2>/dev/null) || die "no ${1:-build/rel/goheap-bpf}: build it with make"
arm_bin=$(realpath -m "${ARM64_BIN:-build/arm64/goheap-bpf}")
if command -v go >/dev/null; then hostgo=$(command -v go); else hostgo=/usr/local/go/bin/go; fi
[ -x "$hostgo" ] || die "no host go (>= 1.21) for cmpprof and go tool pprof: run make deps"
for t in qemu-system-x86_64 qemu-system-aarch64 cpio; do
	command -v $t >/dev/null || die "no $t: install qemu-system-x86 qemu-system-arm busybox-static cpio (tools/deps.sh)"
done
[ -x /bin/busybox ] || die "no /bin/busybox: install busybox-static (tools/deps.sh)"
read -r -a kernels <<<"${VM_KERNELS:-$(awk '!/^#/ && NF { print $1 }' tests/vm/kernels | tr '\n' ' ')}"
jobs=${VM_JOBS:-2}
[ "${#kernels[@]}" -lt "$jobs" ] && jobs=${#kernels[@]}
smp=${VM_SMP:-$([ "$jobs" -gt 1 ] && echo 1 || echo 2)}
limit=${VM_TIMEOUT:-420}
res=build/vm/results
mkdir -p "$res"
start=$(date +%s)
verdicts=$res/verdicts
: >"$verdicts"
rm -f "$res/times"

# arch_of NAME: its architecture in tests/vm/kernels.
arch_of() { awk -v n="$1" '$1 == n { print $3 }' tests/vm/kernels; }

# ---- kernels, initramfs, targets, the comparator ----
ready=()
for k in "${kernels[@]}"; do
	[ -n "$(arch_of "$k")" ] || die "no kernel $k in tests/vm/kernels (VM_KERNELS)"
	rm -rf "${res:?}/$k"
	mkdir -p "$res/$k"
	if tests/vm/fetch.sh "$k" 2>"$res/$k/fetch.err" && tests/vm/initramfs.sh "$k" 2>>"$res/$k/fetch.err"; then
		ready+=("$k")
	else
		echo "$k setup FAIL $(tail -1 "$res/$k/fetch.err")" >>"$verdicts"
	fi
done
archs=$(for k in "${ready[@]}"; do arch_of "$k"; done | sort -u)
for a in $archs; do tests/vm/targets.sh "$a" || die "the $a targets did not build"; done
(cd tests/integration/cmpprof && "$hostgo" build -o "$OLDPWD/build/vm/cmpprof" .) || die "cmpprof did not build"
echo "vm: prepared in $(($(date +%s) - start)) s"

# console_tail DIR: the VM's panic line, if any, and its console's last
# lines, on one line without terminal controls.
console_tail() {
	{ grep -a -m1 'Kernel panic' "$1/console.log"; grep -av '^\s*$' "$1/console.log" | tail -3; } |
		sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' | tr '\n' '|' | tr -cd '[:print:]'
}

# ---- KVM, tried once: on some hosts it hangs at boot ----
accel=${VM_ACCEL:-}
first_amd64=
for k in "${ready[@]}"; do [ "$(arch_of "$k")" = amd64 ] && { first_amd64=$k; break; }; done
if [ -z "$accel" ] && [ -n "$first_amd64" ] && [ -w /dev/kvm ]; then
	p=$res/kvm-probe
	rm -rf "$p" && mkdir -p "$p"
	echo 'exit 0' >"$p/run" && echo /bin/sh >"$p/shell"
	if VM_ACCEL=kvm VM_SMP=1 tests/vm/boot.sh "$first_amd64" "$p" "${VM_KVM_TIMEOUT:-20}"; then
		accel=kvm
	else
		echo "vm: KVM did not boot $first_amd64 within ${VM_KVM_TIMEOUT:-20} s ($(console_tail "$p" | cut -c1-160)): TCG"
	fi
fi
accel=${accel:-tcg}

# ---- the VMs, VM_JOBS at a time (arm64 first: the longest) ----
order=($(for k in "${ready[@]}"; do echo "$([ "$(arch_of "$k")" = arm64 ] && echo 0 || echo 1) $k"; done | sort | cut -d' ' -f2))
launch() {
	local k=$1 a d shell path b cases
	a=$(arch_of "$k") d=$res/$k
	if [ "$a" = arm64 ]; then
		b=$arm_bin
		shell="$PWD/build/vm/busybox-arm64/bin/busybox sh"
		path=$PWD/build/vm/busybox-arm64/applets
	else
		b=$bin shell=/bin/sh path=/usr/sbin:/usr/bin:/sbin:/bin
	fi
	cases=$(tests/vm/cases.sh "$a" | grep -E -- "${VM_CASES:-.}" | tr '\n' ' ')
	if [ "$a" = arm64 ] && ! [ -x "$b" ]; then
		# Until make ARCH=arm64 exists: one failing case, and the VM's
		# userland checked all the same.
		echo "$k arm64-build FAIL no $b (build it with make ARCH=arm64): the arm64 cases did not run" >>"$verdicts"
		cases=$(echo "$cases" | tr ' ' '\n' | grep '^userland' | tr '\n' ' ')
	fi
	echo "$shell" >"$d/shell"
	cat >"$d/run" <<EOF
export PATH=$path
export GUEST_BIN=$b GUEST_TARGETS=$PWD/build/vm/targets/$a GUEST_OUT=/tmp/results
export GUEST_CASES="$cases"
cd $PWD && exec $shell tests/vm/guest.sh
EOF
	(
		t0=$(date +%s)
		VM_ACCEL=$([ "$a" = amd64 ] && echo "$accel" || echo tcg) VM_SMP=$smp \
			tests/vm/boot.sh "$k" "$d" "$limit"
		echo "$? $(($(date +%s) - t0))" >"$d/boot.st"
	) &
}
running=0
for k in "${order[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	echo "vm: booting $k ($(arch_of "$k"), $([ "$(arch_of "$k")" = amd64 ] && echo "$accel" || echo tcg), $smp CPU)"
	launch "$k"
	running=$((running + 1))
done
wait

# ---- verdicts ----
for k in "${ready[@]}"; do
	d=$res/$k
	read -r st secs <"$d/boot.st"
	echo "vm: $k: $secs s"
	echo "$k time ${secs}s" >>"$res/times"
	case $st in
	0) ;;
	124) echo "$k boot FAIL timed out after $limit s: $(console_tail "$d")" >>"$verdicts" ;;
	*) echo "$k boot FAIL did not boot or ended early: $(console_tail "$d")" >>"$verdicts" ;;
	esac
	[ "$st" = 0 ] && ! [ -s "$d/kver" ] &&
		echo "$k guest FAIL the VM booted but ran no case: $(console_tail "$d")" >>"$verdicts"
	[ -s "$d/status" ] && [ "$(cat "$d/status")" != 0 ] &&
		echo "$k guest FAIL guest.sh exited $(cat "$d/status")" >>"$verdicts"
	tests/vm/judge.sh "$d" build/vm/cmpprof "$hostgo" | awk -v k="$k" '
		{ v = $1; sub(/^[A-Z]+ /, ""); c = $0; r = ""
		  if (match(c, /^[^ :]+/)) { r = substr(c, RLENGTH + 1); c = substr(c, 1, RLENGTH) }
		  sub(/^:? */, "", r); print k, c, v, r }' >>"$verdicts"
done
tests/vm/matrix.sh "$verdicts" "${kernels[@]}"
echo "vm: $(($(date +%s) - start)) s in all ($(tr '\n' ' ' <"$res/times" 2>/dev/null | sed 's/ time / /g'))"
awk '$3 == "PASS" { p++ } $3 == "FAIL" { f++ } END { printf "%d passed, %d failed\n", p, f; exit f > 0 }' "$verdicts"
