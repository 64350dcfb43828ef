#!/usr/bin/env bash
# gen-vmlinux.sh - regenerate the committed vmlinux/<arch>/vmlinux.h that the
# CO-RE BPF object (bpf/goheap.bpf.c) compiles against. CO-RE relocates field
# offsets at load time, so a header from any BTF-enabled kernel works on
# others; regenerate only to pick up newer kernel types.
#
#   tools/gen-vmlinux.sh [BTF file]   (default /sys/kernel/btf/vmlinux)
set -euo pipefail
cd "$(dirname "$0")/.."
btf=${1:-/sys/kernel/btf/vmlinux}
bpftool=${BPFTOOL:-$(command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)}
arch=$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
[ -r "$btf" ] || { echo "gen-vmlinux: $btf not readable: kernel built without CONFIG_DEBUG_INFO_BTF?" >&2; exit 1; }
mkdir -p "vmlinux/$arch"
tmp=$(mktemp "vmlinux/$arch/.vmlinux.h.XXXXXX")
trap 'rm -f "$tmp"' EXIT
"$bpftool" btf dump file "$btf" format c >"$tmp"
chmod 0644 "$tmp"
mv "$tmp" "vmlinux/$arch/vmlinux.h"
trap - EXIT
echo "gen-vmlinux: wrote vmlinux/$arch/vmlinux.h from $btf"
