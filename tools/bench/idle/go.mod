module goheap-bpf/tools/bench/idle

go 1.21
