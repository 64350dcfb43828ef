module goheap-bpf/tools/bench/benchgen

go 1.21
