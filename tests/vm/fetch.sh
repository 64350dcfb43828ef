#!/usr/bin/env bash
# fetch.sh - one kernel of tests/vm/kernels, Debian's own package, in
# build/vm/NAME/: the packages downloaded by name through a private apt
# setup (apt.sh; the .debs cached in GOHEAP_VM_CACHE, so a second run
# downloads nothing), the concrete image package resolved from the
# metapackage's Depends, then dpkg -x into build/vm/NAME/root/ (with sid's
# linux-binary-*/linux-modules-* beside its metadata-only image package).
# Writes build/vm/NAME/kernel.env: ARCH, KVER, VMLINUZ, MODDIR, PACKAGES.
# For an arm64 kernel, also Debian's busybox-static:arm64 in
# build/vm/busybox-arm64/bin/busybox.
#
#   tests/vm/fetch.sh NAME
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/apt.sh

name=${1:?usage: fetch.sh NAME}
read -r suite arch meta < <(awk -v n="$name" '$1 == n { print $2, $3, $4 }' tests/vm/kernels) ||
	{ echo "vm: no kernel $name in tests/vm/kernels" >&2; exit 2; }
[ -n "$meta" ] || { echo "vm: no kernel $name in tests/vm/kernels" >&2; exit 2; }
out=build/vm/$name
mkdir -p "$out"

apt_setup "$suite" "$arch"
image=$(apt_depends "$meta" '^linux-image-[0-9]' | sed -n 1p)
[ -n "$image" ] || { echo "vm: $meta in Debian $suite ($arch) depends on no linux-image-<version> package (see apt-cache depends $meta)" >&2; exit 1; }
# sid: the image package is metadata; the kernel and modules are these.
pkgs=("$image" $(apt_depends "$image" '^linux-(binary|modules)-[0-9]'))
files=$(apt_fetch "${pkgs[@]}")

# Extracted once per set of packages.
if [ "$(cat "$out/root.stamp" 2>/dev/null)" != "$files" ]; then
	rm -rf "$out/root" "$out/root.stamp"
	mkdir -p "$out/root"
	for f in $files; do dpkg -x "$f" "$out/root"; done
	echo "$files" >"$out/root.stamp"
fi
moddir=$(ls -d "$out"/root/lib/modules/*/ "$out"/root/usr/lib/modules/*/ 2>/dev/null | head -1 || true)
[ -n "$moddir" ] || { echo "vm: $image has no lib/modules/<version>/ (packages: ${pkgs[*]})" >&2; exit 1; }
moddir=${moddir%/}
kver=$(basename "$moddir")
vmlinuz=$(ls "$out/root/boot/vmlinuz-$kver" "$moddir/vmlinuz" 2>/dev/null | head -1 || true)
[ -n "$vmlinuz" ] || { echo "vm: $image has no vmlinuz for $kver" >&2; exit 1; }
cat >"$out/kernel.env" <<ENV
ARCH=$arch
KVER=$kver
VMLINUZ=$PWD/$vmlinuz
MODDIR=$PWD/$moddir
PACKAGES="${pkgs[*]}"
ENV

if [ "$arch" = arm64 ]; then
	bb=build/vm/busybox-arm64
	f=$(apt_fetch busybox-static)
	if [ "$(cat "$bb.stamp" 2>/dev/null)" != "$f" ]; then
		rm -rf "$bb" && mkdir -p "$bb" && dpkg -x "$f" "$bb/pkg"
		mkdir -p "$bb/bin" && cp "$bb/pkg/bin/busybox" "$bb/bin/busybox"
		echo "$f" >"$bb.stamp"
	fi
fi
echo "vm: $name: $image ($kver)"
