#!/bin/busybox sh
# init.sh - /init of the test VMs' initramfs (initramfs.sh): loads the
# virtio and 9p modules listed in /modules, mounts the host's / read-only
# (9p tag "host") as /host and the results directory read-write (tag
# "results") at /host/tmp/results, the kernel's file systems inside /host
# (proc, sys, dev, tmpfs /tmp, bpffs, tracefs, cgroup2), then runs
# /host/tmp/results/run chrooted into /host with the shell named in
# results/shell (the host's /bin/sh on amd64, an arm64 busybox on arm64),
# writes its status to results/status and the console, and powers off.
/bin/busybox mkdir -p /bin /proc /sys /dev
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev

fail() {
	echo "goheap-vm: init: $*"
	echo "goheap-vm: status init-failed"
	poweroff -f
}

for m in $(cat /modules); do
	insmod "/lib/modules/$m" || fail "insmod $m failed"
done
o=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o "$o,ro,cache=loose" host /host || fail "cannot mount the host's / (9p tag host)"
mount -t proc proc /host/proc || fail "mount proc"
mount -t sysfs sys /host/sys || fail "mount sys"
mount -t devtmpfs dev /host/dev || fail "mount dev"
mount -t tmpfs -o mode=1777 tmp /host/tmp || fail "mount /tmp"
mount -t bpf bpf /host/sys/fs/bpf || fail "mount bpffs"
mount -t tracefs tracefs /host/sys/kernel/tracing 2>/dev/null ||
	mount -t debugfs debugfs /host/sys/kernel/debug || fail "mount tracefs"
mount -t cgroup2 cgroup2 /host/sys/fs/cgroup || fail "mount cgroup2"
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up || fail "cannot bring up lo"
mkdir -p /host/tmp/results
mount -t 9p -o "$o" results /host/tmp/results || fail "cannot mount the results (9p tag results)"
[ -r /host/tmp/results/run ] || fail "no results/run"

echo "goheap-vm: running on $(uname -r) $(uname -m)"
sh=$(cat /host/tmp/results/shell)
# shellcheck disable=SC2086
chroot /host $sh /tmp/results/run </dev/null
st=$?
echo "$st" >/host/tmp/results/status
sync
umount /host/tmp/results
echo "goheap-vm: status $st"
poweroff -f
