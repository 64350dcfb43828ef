#!/usr/bin/env bash
# demo.sh - build the bundled demo Go program (tests/targets/heapgen), start
# it, profile it with goheap-bpf (table, then a pprof file opened with
# `go tool pprof`), and stop it.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-./goheap-bpf}
go=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
dir=build/demo
mkdir -p "$dir"

echo "demo: building the demo Go program"
tests/targets/build.sh heapgen exe "$("$go" env GOROOT)" "$dir/heapgen"
rm -f "$dir/ready" "$dir/own.pb.gz"
HEAPGEN_RATE=4096 HEAPGEN_PROFILE="$dir/own.pb.gz" HEAPGEN_READY="$dir/ready" \
	"$dir/heapgen" >/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 300); do [ -e "$dir/ready" ] && break; sleep 0.1; done
[ -e "$dir/ready" ] || { echo "demo: the demo program did not start" >&2; exit 1; }

echo "demo: sudo goheap-bpf --pid $pid"
"$bin" --pid "$pid" --top 15
echo
echo "demo: goheap-bpf --pid $pid --format pprof --output $dir/heap.pb.gz"
"$bin" --pid "$pid" --format pprof --output "$dir/heap.pb.gz"
echo "demo: go tool pprof -top $dir/heap.pb.gz (first lines)"
"$go" tool pprof -top "$dir/heap.pb.gz" 2>/dev/null | head -12
echo
echo "demo: the program's own runtime/pprof profile says:"
"$go" tool pprof -top "$dir/own.pb.gz" 2>/dev/null | head -12
