#!/usr/bin/env bash
# boot.sh - one test VM: kernel NAME (fetch.sh, initramfs.sh) under qemu,
# the host's / shared read-only and DIR read-write (DIR/run is what the VM
# runs, DIR/shell the shell it runs it with; init.sh), within SECONDS (a
# VM that hangs is killed). The console goes to DIR/console.log. Exits 0
# when the VM ran DIR/run to its end (its status in DIR/status), 124 when
# it timed out, else 1 (did not boot, panicked, init failed).
#
#   tests/vm/boot.sh NAME DIR SECONDS
#
# Environment: VM_ACCEL kvm or tcg (tcg), VM_SMP (2), VM_MEM (1G).
set -uo pipefail
cd "$(dirname "$0")/../.."
name=${1:?usage: boot.sh NAME DIR SECONDS} dir=${2:?} secs=${3:?}
. "build/vm/$name/kernel.env" || exit 1
dir=$(realpath "$dir")
rm -f "$dir/status" "$dir/console.log"
case $ARCH in
amd64) qemu=(qemu-system-x86_64) console=ttyS0 ;;
arm64) qemu=(qemu-system-aarch64 -M virt -cpu cortex-a72) console=ttyAMA0 ;;
esac
command -v "${qemu[0]}" >/dev/null ||
	{ echo "vm: no ${qemu[0]}: install qemu-system-x86 / qemu-system-arm (tools/deps.sh)" >&2; exit 1; }
if [ "${VM_ACCEL:-tcg}" = kvm ]; then
	qemu+=(-accel kvm -cpu host)
else
	qemu+=(-accel tcg)
fi
share=security_model=none,multidevs=remap
timeout -k 5 "$secs" "${qemu[@]}" -m "${VM_MEM:-1G}" -smp "${VM_SMP:-2}" \
	-kernel "$VMLINUZ" -initrd "build/vm/$name/initrd.gz" \
	-append "console=$console quiet panic=-1" -nographic -no-reboot -monitor none -nic none \
	-virtfs "local,path=/,mount_tag=host,readonly=on,$share" \
	-virtfs "local,path=$dir,mount_tag=results,$share" \
	</dev/null >"$dir/console.log" 2>&1
st=$?
[ $st -eq 124 ] || [ $st -eq 137 ] && exit 124
[ -s "$dir/status" ] && exit 0
exit 1
