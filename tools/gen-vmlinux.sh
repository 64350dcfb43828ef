#!/usr/bin/env bash
# gen-vmlinux.sh - regenerate the committed vmlinux/<arch>/vmlinux.h that the
# CO-RE BPF objects (bpf/*.bpf.c) compile against. CO-RE relocates field
# offsets at load time, so a header from any BTF-enabled kernel works on
# others; regenerate only to pick up newer kernel types.
#
#   tools/gen-vmlinux.sh [BTF file]   this host's architecture, from the
#                                     file (default /sys/kernel/btf/vmlinux)
#   tools/gen-vmlinux.sh --debian ARCH [SUITE]
#                                     ARCH (arm64, x86) from Debian SUITE's
#                                     (default bookworm) newest
#                                     linux-image-*-ARCH kernel
#
# How each committed header was made:
#   vmlinux/x86/vmlinux.h    /sys/kernel/btf/vmlinux of an amd64 host
#   vmlinux/arm64/vmlinux.h  --debian arm64 bookworm: the BTF of
#                            linux-image-6.1.0-50-arm64 (6.1.176-1)
#
# --debian fetches the package with a private apt setup under a temporary
# directory (its own sources list, lists and cache), never the host's apt
# configuration, and needs no root. A Debian kernel's vmlinuz is a raw
# (arm64: possibly gzip'd) Image without ELF sections, but the kernel's BTF
# blob (.BTF, CONFIG_DEBUG_INFO_BTF) is in it whole: the script finds its
# header (magic 0xeB9F, version 1, hdr_len 24, types then strings) and
# takes hdr_len + str_off + str_len bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
bpftool=${BPFTOOL:-$(command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)}
arch=$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
work=

die() { echo "gen-vmlinux: $*" >&2; exit 1; }
cleanup() { [ -z "$work" ] || rm -rf "$work"; }
trap cleanup EXIT

# The Debian architecture of a vmlinux/ one.
debarch() {
	case $1 in
	arm64) echo arm64 ;;
	x86) echo amd64 ;;
	*) die "unknown architecture $1: use arm64 or x86" ;;
	esac
}

# Downloads SUITE's newest linux-image-<abi>-<debarch> into $work and
# prints the path of its vmlinuz.
debian_vmlinuz() {
	local da=$1 suite=$2 pkg
	local -a apt
	mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/dl"
	echo "deb [arch=$da signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" \
		>"$work/sources.list"
	apt=(-o "Dir::Etc::sourcelist=$work/sources.list" -o Dir::Etc::sourceparts=/nonexistent
		-o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
		-o "APT::Architecture=$da" -o "APT::Architectures::=$da" -o Debug::NoLocking=1)
	apt-get "${apt[@]}" -qq update >&2 || die "apt-get update of $suite ($da) failed: is deb.debian.org reachable?"
	pkg=$(apt-cache "${apt[@]}" search --names-only "^linux-image-[0-9.]+-[0-9]+-$da\$" |
		awk '{print $1}' | sort -V | tail -1)
	[ -n "$pkg" ] || die "no linux-image-*-$da package in $suite"
	echo "gen-vmlinux: using $pkg" >&2
	(cd "$work/dl" && apt-get "${apt[@]}" -qq download "$pkg" >&2) ||
		die "apt-get download $pkg failed"
	dpkg-deb --fsys-tarfile "$work/dl/"*.deb | tar -x -C "$work/dl" --wildcards './boot/vmlinuz-*'
	ls "$work/dl/boot/"vmlinuz-*
}

# Copies the BTF blob out of a kernel image (gzip'd or not) into $2.
carve_btf() {
	python3 - "$1" "$2" <<'EOF'
import gzip, struct, sys
data = open(sys.argv[1], "rb").read()
if data[:2] == b"\x1f\x8b":
    data = gzip.decompress(data)
at = 0
while True:
    at = data.find(b"\x9f\xeb\x01", at)
    if at < 0:
        sys.exit("gen-vmlinux: no BTF header in %s: kernel built without CONFIG_DEBUG_INFO_BTF?" % sys.argv[1])
    if at + 24 <= len(data):
        hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from("<5I", data, at + 4)
        end = at + hdr_len + str_off + str_len
        if hdr_len == 24 and type_off == 0 and str_off == type_len and end <= len(data):
            open(sys.argv[2], "wb").write(data[at:end])
            break
    at += 1
EOF
}

if [ "${1:-}" = --debian ]; then
	[ $# -ge 2 ] || die "--debian needs an architecture: tools/gen-vmlinux.sh --debian arm64"
	arch=$2
	work=$(mktemp -d /tmp/gen-vmlinux.XXXXXX)
	vmlinuz=$(debian_vmlinuz "$(debarch "$arch")" "${3:-bookworm}")
	btf=$work/btf
	carve_btf "$vmlinuz" "$btf"
else
	btf=${1:-/sys/kernel/btf/vmlinux}
fi
[ -r "$btf" ] || die "$btf not readable: kernel built without CONFIG_DEBUG_INFO_BTF?"
mkdir -p "vmlinux/$arch"
tmp=$(mktemp "vmlinux/$arch/.vmlinux.h.XXXXXX")
trap 'rm -f "$tmp"; cleanup' EXIT
"$bpftool" btf dump file "$btf" format c >"$tmp"
chmod 0644 "$tmp"
mv "$tmp" "vmlinux/$arch/vmlinux.h"
echo "gen-vmlinux: wrote vmlinux/$arch/vmlinux.h from $btf"
