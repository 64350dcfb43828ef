#!/usr/bin/env bash
# initramfs.sh - the initramfs of one fetched kernel (fetch.sh), in
# build/vm/NAME/initrd.gz: Debian's busybox-static of the kernel's
# architecture (amd64: the host's /bin/busybox; arm64: fetch.sh's), the
# kernel package's own virtio and 9p modules in modules.dep order
# (depmod -b when the package has no modules.dep; .ko.xz/.ko.zst
# decompressed here, as busybox insmod may not read them) and init.sh as
# /init. Rebuilt only when one of those changed.
#
#   tests/vm/initramfs.sh NAME
set -euo pipefail
cd "$(dirname "$0")/../.."
name=${1:?usage: initramfs.sh NAME}
out=build/vm/$name
[ -e "$out/kernel.env" ] || { echo "vm: $name not fetched: run tests/vm/fetch.sh $name" >&2; exit 1; }
. "$out/kernel.env"
case $ARCH in
amd64) busybox=/bin/busybox ;;
arm64) busybox=build/vm/busybox-arm64/bin/busybox ;;
*) echo "vm: no initramfs for $ARCH" >&2; exit 1 ;;
esac
[ -x "$busybox" ] || { echo "vm: no $busybox: install busybox-static (tools/deps.sh) or run fetch.sh $name" >&2; exit 1; }
for t in cpio gzip; do
	command -v $t >/dev/null || { echo "vm: no $t: install it (tools/deps.sh)" >&2; exit 1; }
done

stamp=$( { cat "$out/root.stamp"; sha256sum "$busybox" tests/vm/init.sh tests/vm/initramfs.sh; } | sha256sum)
[ -s "$out/initrd.gz" ] && [ "$(cat "$out/initrd.stamp" 2>/dev/null)" = "$stamp" ] && exit 0

# modules.dep, made when the package has none.
dep=$MODDIR/modules.dep
if ! [ -s "$dep" ]; then
	base=$(mktemp -d)
	mkdir -p "$base/lib/modules"
	ln -s "$MODDIR" "$base/lib/modules/$KVER"
	depmod -b "$base" "$KVER" 2>"build/vm/$name/depmod.log" ||
		{ rm -rf "$base"; echo "vm: depmod -b failed for $KVER: is kmod installed?" >&2; exit 1; }
	rm -rf "$base"
fi

# The wanted modules and what they need, each after its dependencies.
wanted="virtio_pci virtio_mmio 9pnet_virtio 9p"
order=$(awk -v want="$wanted" '
	function base(p) { sub(/.*\//, "", p); sub(/\.ko(\.xz|\.zst|\.gz)?$/, "", p); gsub("-", "_", p); return p }
	function visit(m,   n, d, i) {
		if (m in done || !(m in path)) return
		done[m] = 1
		n = split(deps[m], d, " ")
		# modprobe loads the last-listed dependency first.
		for (i = n; i >= 1; i--) visit(base(d[i]))
		print path[m]
	}
	{ p = $1; sub(/:$/, "", p); m = base(p); path[m] = p; deps[m] = ""
	  for (i = 2; i <= NF; i++) deps[m] = deps[m] " " $i }
	END { n = split(want, w, " "); for (i = 1; i <= n; i++) visit(w[i]) }' "$dep")
for m in 9pnet_virtio 9p; do
	grep -q "/$m\.ko" <<<"$order" || { echo "vm: $KVER has no module $m (is it built in or missing? see $dep)" >&2; exit 1; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,dev,proc,sys,host,results,lib/modules}
cp "$busybox" "$tmp/bin/busybox"
: >"$tmp/modules"
for p in $order; do
	f=$(basename "$p")
	case $f in
	*.ko.xz) xz -dc "$MODDIR/$p" >"$tmp/lib/modules/${f%.xz}"; f=${f%.xz} ;;
	*.ko.zst) zstd -qdc "$MODDIR/$p" >"$tmp/lib/modules/${f%.zst}"; f=${f%.zst} ;;
	*.ko.gz) gzip -dc "$MODDIR/$p" >"$tmp/lib/modules/${f%.gz}"; f=${f%.gz} ;;
	*) cp "$MODDIR/$p" "$tmp/lib/modules/$f" ;;
	esac
	echo "$f" >>"$tmp/modules"
done
cp tests/vm/init.sh "$tmp/init"
chmod +x "$tmp/init"
(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -6) >"$out/initrd.gz.tmp"
mv "$out/initrd.gz.tmp" "$out/initrd.gz"
echo "$stamp" >"$out/initrd.stamp"
echo "vm: $name: initramfs with $(tr '\n' ' ' <"$tmp/modules")"
