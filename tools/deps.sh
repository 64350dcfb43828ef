#!/usr/bin/env bash
# deps.sh - install what goheap-bpf's build and tests need, and nothing when
# it is all there: Debian packages, then the Go toolchains the integration
# tests build targets with (tools/go-toolchains.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

# Build: clang/llvm (BPF), libbpf, libelf, zlib, bpftool (skeletons), gcc,
# libmicrohttpd (the command's HTTP server, goheap-bpf serve; not the
# library's).
# Tests: cmocka, python3 (JSON checks, fuzz seeds), binutils (objcopy for
# the negative corpus and the fuzz seeds), util-linux (setpriv, unshare),
# procps, curl (benchmark), libclang-rt-14-dev (libFuzzer, clang 14's),
# strace (the system calls a run makes), prometheus (promtool checks the
# server's /metrics), qemu-user (test_goexp runs Go's arm64 math.Exp
# under qemu-aarch64), man-db and groff-base (make doc-test renders the man
# pages with man --warnings).
# Cross-building for arm64 (make ARCH=arm64): Debian's cross gcc and the
# arm64 builds of the libraries, co-installed through multiarch (dpkg
# --add-architecture arm64).
# make vmtest: qemu-system-x86, qemu-system-arm (Debian's kernels booted),
# busybox-static and cpio (their initramfs), without recommends.
pkgs=(clang llvm libbpf-dev libelf-dev zlib1g-dev bpftool libcmocka-dev
      pkg-config make gcc binutils python3 clang-format curl procps util-linux
      libclang-rt-14-dev strace libmicrohttpd-dev prometheus qemu-user
      man-db groff-base
      gcc-aarch64-linux-gnu libc6-dev-arm64-cross libbpf-dev:arm64
      libelf-dev:arm64 zlib1g-dev:arm64 libmicrohttpd-dev:arm64)
vmpkgs=(qemu-system-x86 qemu-system-arm busybox-static cpio)
# missing PKG...: those not installed, in the array missing.
missing() {
	local p
	missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
}
missing "${pkgs[@]}"
main=("${missing[@]}")
missing "${vmpkgs[@]}"
vm=("${missing[@]}")
if ((${#main[@]} + ${#vm[@]})); then
	echo "deps: installing ${main[*]} ${vm[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: need root to install Debian packages: sudo make deps" >&2
		exit 1
	fi
	if [[ " ${main[*]}" == *:arm64* ]] &&
		! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
	fi
	# An apt run stopped midway (a killed CI job) leaves packages
	# unpacked but not configured, and apt refuses to go on until dpkg
	# finishes them, which is what it asks for.
	if [ -n "$(dpkg --audit 2>/dev/null)" ]; then
		echo "deps: a dpkg run was interrupted: finishing it (dpkg --configure -a)"
		dpkg --configure -a >/dev/null ||
			{ echo "deps: dpkg --configure -a failed: see dpkg --audit, fix what it names, then make deps" >&2; exit 1; }
	fi
	apt-get update -qq
	if ((${#main[@]})); then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${main[@]}" >/dev/null
	fi
	if ((${#vm[@]})); then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${vm[@]}" >/dev/null
	fi
fi
tools/go-toolchains.sh fetch
