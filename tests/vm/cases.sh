#!/usr/bin/env bash
# cases.sh - the cases a VM of architecture ARCH runs (guest.sh's names),
# one a line. amd64: every backend on the oldest and newest release (one
# build shape each: the host's matrix has every release in every shape),
# the goroutine profile (iter, procmem), auto, a busy program, a sweep, a
# serve scrape, a watch trigger, an OOM kill and a 32-bit process
# refused; arm64: every backend on three releases x exe, pie and
# stripped, the goroutine profile (iter, procmem), a sweep, a scrape, a
# watch trigger and an OOM kill, after a check of the VM's userland.
#
#   tests/vm/cases.sh amd64|arm64
set -euo pipefail
cd "$(dirname "$0")/../.."
newest=$(tools/go-toolchains.sh list | tail -1)
oldest=$(tools/go-toolchains.sh list | sed -n 1p)
case ${1:?usage: cases.sh amd64|arm64} in
amd64)
	for b in iter perf procmem; do
		echo "read:$b:$oldest:exe"
		echo "read:$b:$newest:pie"
	done
	echo "goroutines:iter:$oldest:exe"
	echo "goroutines:procmem:$newest:pie"
	echo "auto:$newest:pie"
	echo busy
	echo "all:$oldest:exe,$newest:pie"
	echo "serve:$newest:pie"
	echo watch
	echo oom
	echo "i386:$newest" ;;
arm64)
	echo "userland:$newest:exe"
	for v in 1.19.13 1.23.12 "$newest"; do
		for m in exe pie exe-stripped; do
			for b in iter perf procmem; do echo "read:$b:$v:$m"; done
		done
	done
	echo "goroutines:iter:$newest:exe"
	echo "goroutines:procmem:1.19.13:pie"
	echo "all:1.19.13:exe,$newest:pie"
	echo "serve:$newest:exe"
	echo watch
	echo oom ;;
*) echo "vm: no cases for $1" >&2; exit 2 ;;
esac
