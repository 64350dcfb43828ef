#!/usr/bin/env bash
# go-toolchains.sh - the Go releases goheap-bpf supports and tests, fetched
# as official toolchains through the Go module proxy (GOTOOLCHAIN), cached
# in the module cache between runs.
#
#   go-toolchains.sh list          the supported versions, newest patch each
#   go-toolchains.sh fetch         download any that are missing
#   go-toolchains.sh goroot 1.22   GOROOT of that release (fetching it if needed)
set -euo pipefail

VERSIONS=(1.18.10 1.19.13 1.20.14 1.21.13 1.22.12 1.23.12 1.24.13 1.25.14 1.26.11 1.27.4)

host_go() {
	if command -v go >/dev/null; then command -v go
	elif [ -x /usr/local/go/bin/go ]; then echo /usr/local/go/bin/go
	else echo "go-toolchains: no host go (>= 1.21) found to fetch toolchains with" >&2; exit 1
	fi
}

full_version() {
	local v
	for v in "${VERSIONS[@]}"; do
		[ "${v%.*}" = "$1" ] || [ "$v" = "$1" ] && { echo "$v"; return; }
	done
	echo "go-toolchains: unsupported Go release $1" >&2; exit 1
}

goroot() {
	local v; v=$(full_version "$1")
	(cd / && GOTOOLCHAIN="go$v" GOFLAGS= "$(host_go)" env GOROOT)
}

case "${1:-}" in
list) printf '%s\n' "${VERSIONS[@]}" ;;
fetch)
	for v in "${VERSIONS[@]}"; do
		r=$(goroot "$v") || exit 1
		[ -x "$r/bin/go" ] || { echo "go-toolchains: go$v did not install" >&2; exit 1; }
	done ;;
goroot) goroot "${2:?usage: go-toolchains.sh goroot 1.N}" ;;
*) echo "usage: go-toolchains.sh list|fetch|goroot 1.N" >&2; exit 2 ;;
esac
