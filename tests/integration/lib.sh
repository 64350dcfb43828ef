# lib.sh - what the integration scripts share. Source it with NAME set to
# the script's name (it prefixes every message), then call setup "$@".
#
# setup BIN: checks the arguments and root, moves to the repository's top,
# and sets bin (the goheap-bpf binary), hostgo (a go >= 1.21 for the
# comparator and go tool pprof) and versions (GO_VERSIONS, or every
# supported release).

die() {
	echo "$NAME: $*" >&2
	exit 1
}

setup() {
	[ $# -eq 1 ] || die "usage: $(basename "$0") BIN"
	bin=$(realpath -e "$1" 2>/dev/null) || die "no binary $1; build it with make"
	cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
	[ "$(id -u)" -eq 0 ] ||
		die "needs root (BPF: CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE; namespaces): run it with sudo"
	if command -v go >/dev/null; then hostgo=$(command -v go); else hostgo=/usr/local/go/bin/go; fi
	[ -x "$hostgo" ] || die "no host go (>= 1.21) for cmpprof and go tool pprof"
	read -r -a versions <<<"${GO_VERSIONS:-$(tools/go-toolchains.sh list | tr '\n' ' ')}"
}

# build_cmpprof DIR: build the comparator (github.com/google/pprof/profile)
# into DIR/cmpprof and set cmpprof to it.
build_cmpprof() {
	cmpprof=$1/cmpprof
	(cd tests/integration/cmpprof && "$hostgo" build -o "$cmpprof" .) ||
		die "cmpprof did not build"
}
