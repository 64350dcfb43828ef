#!/usr/bin/env bash
# targets.sh - the Go programs the VMs run, built on the host by
# tests/targets/build.sh (cached by its stamps) two at a time, into
# build/vm/targets/ARCH/VERSION/MODE/NAME, and the arm64 VM's userland: a
# directory of busybox applet links (build/vm/busybox-arm64/applets/) to
# Debian's arm64 busybox (fetch.sh), its PATH inside the VM.
#
#   tests/vm/targets.sh amd64|arm64
set -euo pipefail
cd "$(dirname "$0")/../.."
arch=${1:?usage: targets.sh amd64|arm64}
newest=$(tools/go-toolchains.sh list | tail -1)
oldest=$(tools/go-toolchains.sh list | sed -n 1p)
case $arch in
amd64)
	# NAME VERSION MODE: one release per build shape (the host's matrix
	# has every release); the newest for the rest; a 32-bit program for
	# the refusal a host without IA32 emulation cannot show.
	builds="heapgen $oldest exe
heapgen $newest pie
goroutines $oldest exe
goroutines $newest pie
churn $newest exe
grower $newest exe
oomgrow $newest exe
nodata $newest 386" ;;
arm64)
	builds=$(for v in 1.19.13 1.23.12 "$newest"; do
		for m in exe pie exe-stripped; do echo "heapgen $v $m"; done
	done
	echo "goroutines $newest exe"
	echo "goroutines 1.19.13 pie"
	echo "grower $newest exe"
	echo "oomgrow $newest exe") ;;
*) echo "vm: targets for amd64 or arm64 only" >&2; exit 2 ;;
esac
mkdir -p build/vm/targets
# shellcheck disable=SC2016
echo "$builds" | GOARCH=$arch xargs -P 2 -L 1 sh -c '
	dir=build/vm/targets/$GOARCH/$1/$2
	mkdir -p "$dir"
	goroot=$(tools/go-toolchains.sh goroot "$1") || { echo "vm: no Go $1 toolchain: run make deps"; exit 1; }
	tests/targets/build.sh "$0" "$2" "$goroot" "$dir/$0" >"$dir/$0.log" 2>&1 ||
		{ echo "vm: building $0 with Go $1 ($2, $GOARCH) failed:"; cat "$dir/$0.log"; exit 1; }
' || { echo "vm: target builds failed" >&2; exit 1; }

if [ "$arch" = arm64 ]; then
	bb=build/vm/busybox-arm64
	[ -x "$bb/bin/busybox" ] || { echo "vm: no arm64 busybox: run tests/vm/fetch.sh bookworm-arm64" >&2; exit 1; }
	# Its applets as the host's busybox of the same package lists them.
	rm -rf "$bb/applets" && mkdir -p "$bb/applets"
	for a in $(/bin/busybox --list); do ln -s ../bin/busybox "$bb/applets/$a"; done
fi
