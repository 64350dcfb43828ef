#!/usr/bin/env bash
# build.sh - build one test target (tests/targets/NAME/main.go) with the Go
# toolchain at GOROOT into OUT, in one of these modes:
#
#   exe          plain executable (cgo off)
#   pie          position-independent executable (cgo off)
#   exe-stripped, pie-stripped
#                the same without symbol table and DWARF (-ldflags='-s -w')
#   cgo          cgo on, internally linked executable (tests/targets/cgo/
#                cgo.go is built in: it calls C, so libc is mapped)
#   cgo-pie-ext  cgo on, PIE, linked by the external linker (gcc)
#   c-shared     a -buildmode=c-shared library; tests/targets/cshared/
#                export.go exports HeapgenRun(profile, ready) which sets
#                HEAPGEN_PROFILE and HEAPGEN_READY and runs the target's
#                main (load it with tests/targets/cshared/host.c)
#   386          GOARCH=386 executable (a 32-bit target)
#   linkshared   -linkshared executable; its Go packages go into a shared
#                library under OUT.pkg/ (built first, -buildmode=shared)
#
# GOARCH=arm64 in the environment builds for arm64 (exe, pie and the
# stripped modes; the test VMs' arm64 targets), else amd64.
#
# Skipped when OUT was built from the same sources by the same toolchain in
# the same mode (OUT.stamp records that).
#
#   build.sh NAME MODE GOROOT OUT
set -euo pipefail

usage="usage: build.sh NAME exe|pie|cgo|cgo-pie-ext|c-shared|386|linkshared GOROOT OUT"
name=${1:?$usage}
mode=${2:?$usage}
goroot=${3:?$usage}
out=${4:?$usage}
out=$(realpath -m "$out")
here=$(cd "$(dirname "$0")" && pwd)

src=$here/$name/main.go
[ -f "$src" ] || { echo "build.sh: no target $name ($src)" >&2; exit 1; }
# Extra source built into the target, and the go build flags, per mode.
extra=
cgo=0
goarch=${GOARCH:-amd64}
case $goarch in
amd64) ;;
arm64) case $mode in exe | pie | exe-stripped | pie-stripped) ;;
       *) echo "build.sh: mode $mode is amd64-only (GOARCH=$goarch)" >&2; exit 2 ;; esac ;;
*) echo "build.sh: GOARCH=$goarch: amd64 or arm64 only" >&2; exit 2 ;;
esac
case $mode in
exe | pie) flags=(-buildmode="$mode") ;;
exe-stripped | pie-stripped) flags=(-buildmode="${mode%-stripped}" "-ldflags=-s -w") ;;
cgo) extra=$here/cgo/cgo.go cgo=1 flags=(-ldflags=-linkmode=internal) ;;
cgo-pie-ext) extra=$here/cgo/cgo.go cgo=1 flags=(-buildmode=pie -ldflags=-linkmode=external) ;;
c-shared) extra=$here/cshared/export.go cgo=1 flags=(-buildmode=c-shared) ;;
386) [ "$goarch" = amd64 ] || { echo "build.sh: mode 386 with GOARCH=$goarch" >&2; exit 2; }
	goarch=386 flags=() ;;
linkshared) cgo=1 flags=(-linkshared -pkgdir "$out.pkg") ;;
*) echo "build.sh: $usage" >&2; exit 2 ;;
esac
go=$goroot/bin/go
[ -x "$go" ] || { echo "build.sh: no go in $goroot" >&2; exit 1; }

# The stamp names everything the binary depends on: the sources, the
# toolchain (its version file and go binary), the build mode and where it
# is (a -linkshared binary finds its library by an absolute RUNPATH, so a
# build tree copied from another checkout must be rebuilt).
stamp=$( {
	echo "mode $mode out $out"
	[ "$goarch" = amd64 ] || echo "goarch $goarch"
	sha256sum "$src" $extra "$goroot/VERSION" "$go" | cut -d' ' -f1
} | sha256sum | cut -d' ' -f1)
if [ -e "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi

mkdir -p "$(dirname "$out")"
rm -f "$out" "$out.stamp"
# The named files must share a directory: build from a private copy.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$src" $extra "$work/"
# GOTOOLCHAIN=local: build with exactly this toolchain, never switch; no
# GOFLAGS from the caller or the go env file (older releases lack some
# flags). -linkshared needs GOPATH mode.
env=(GOROOT="$goroot" GOTOOLCHAIN=local GOENV=off GOFLAGS= GO111MODULE=on
	CGO_ENABLED=$cgo GOARCH=$goarch)
if [ "$mode" = linkshared ]; then
	env+=(GO111MODULE=off)
	imports=$(cd "$work" && env "${env[@]}" "$go" list -f '{{join .Imports " "}}' main.go)
	# shellcheck disable=SC2086
	(cd "$work" && env "${env[@]}" "$go" install -buildmode=shared -pkgdir "$out.pkg" runtime $imports)
fi
(cd "$work" && env "${env[@]}" "$go" build "${flags[@]}" -o "$out.tmp" ./*.go)
mv "$out.tmp" "$out"
echo "$stamp" >"$out.stamp"
