#!/usr/bin/env bash
# build.sh - build one test target (tests/targets/NAME/main.go) with the Go
# toolchain at GOROOT, as a plain executable or a PIE, into OUT; skipped
# when OUT was built from the same source by the same toolchain in the same
# mode (OUT.stamp records that).
#
#   build.sh NAME exe|pie GOROOT OUT
set -euo pipefail

name=${1:?usage: build.sh NAME exe|pie GOROOT OUT}
mode=${2:?usage: build.sh NAME exe|pie GOROOT OUT}
goroot=${3:?usage: build.sh NAME exe|pie GOROOT OUT}
out=${4:?usage: build.sh NAME exe|pie GOROOT OUT}
out=$(realpath -m "$out")

src=$(cd "$(dirname "$0")/$name" && pwd)/main.go
[ -f "$src" ] || { echo "build.sh: no target $name ($src)" >&2; exit 1; }
case $mode in
exe | pie) ;;
*) echo "build.sh: mode must be exe or pie, not $mode" >&2; exit 2 ;;
esac
go=$goroot/bin/go
[ -x "$go" ] || { echo "build.sh: no go in $goroot" >&2; exit 1; }

# The stamp names everything the binary depends on: the source, the
# toolchain (its version file and go binary) and the build mode.
stamp=$( {
	echo "mode $mode"
	sha256sum "$src" "$goroot/VERSION" "$go" | cut -d' ' -f1
} | sha256sum | cut -d' ' -f1)
if [ -x "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi

mkdir -p "$(dirname "$out")"
rm -f "$out" "$out.stamp"
# GOTOOLCHAIN=local: build with exactly this toolchain, never switch; no
# GOFLAGS from the caller or the go env file (older releases lack some
# flags).
(cd "$(dirname "$src")" &&
	GOROOT=$goroot GOTOOLCHAIN=local GOENV=off GOFLAGS= GO111MODULE=on \
		"$go" build -buildmode="$mode" -o "$out.tmp" main.go)
mv "$out.tmp" "$out"
echo "$stamp" >"$out.stamp"
