#!/usr/bin/env python3
# bpf_helpers.py - the compiled BPF objects call no helper that could write
# anything but the program's own stack, maps and ring buffer: every call
# instruction of every program and global (non-inlined) function is
# listed from llvm-objdump, helper IDs named through the kernel's enum
# bpf_func_id (the committed vmlinux.h), and each must be in ALLOWED. A
# kfunc call (named by its relocation) or an indirect call (callx) fails
# too: neither is on the list. Prints each function's helpers.
#
#   bpf_helpers.py VMLINUX_H OBJ...
import re
import subprocess
import sys

# The helpers the programs may call, and why each writes nothing outside
# the program's own memory.
ALLOWED = {
    "map_lookup_elem": "returns a pointer into one of the program's maps",
    "ktime_get_ns": "reads the clock",
    "get_smp_processor_id": "reads the CPU number",
    "get_current_pid_tgid": "reads the current task's IDs",
    "probe_read_user": "copies user memory into the program's memory",
    "probe_read_kernel": "copies kernel memory (an OOM victim's memory cgroup counters) into the program's memory",
    "copy_from_user_task": "copies a task's memory into the program's memory",
    "ringbuf_output": "copies into the program's ring buffer",
    "ringbuf_query": "reads the program's ring buffer's state",
    "loop": "calls the program's own callback",
    "get_current_task_btf": "returns the current task, for the verifier to let the program read it",
}

OPCODE_CALL, OPCODE_CALLX = 0x85, 0x8D
SRC_HELPER, SRC_KFUNC = 0, 2


def helper_names(vmlinux_h):
    with open(vmlinux_h) as f:
        return {int(n): name for name, n in re.findall(r"\bBPF_FUNC_(\w+) = (\d+),", f.read())}


def calls(obj, names):
    """{(section, function): {callee names}} of obj."""
    out = subprocess.run(["llvm-objdump", "-d", "-r", obj], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    found, section, func = {}, "?", "?"
    for i, line in enumerate(out):
        m = re.match(r"Disassembly of section (\S+):", line)
        if m:
            section = m.group(1)
            continue
        m = re.match(r"[0-9a-f]+ <(\w+)>:", line)
        if m and not m.group(1).startswith("LBB"):
            func = m.group(1)
            continue
        m = re.match(r"\s*\d+:\s+([0-9a-f]{2}(?: [0-9a-f]{2}){7})", line)
        if not m:
            continue
        raw = bytes.fromhex(m.group(1))
        src, imm = raw[1] >> 4, int.from_bytes(raw[4:8], "little", signed=True)
        callee = None
        if raw[0] == OPCODE_CALLX:
            callee = "callx (an indirect call)"
        elif raw[0] == OPCODE_CALL and src == SRC_HELPER:
            callee = names.get(imm, f"unknown helper {imm}")
        elif raw[0] == OPCODE_CALL and src == SRC_KFUNC:
            reloc = out[i + 1].split()[-1] if i + 1 < len(out) else "?"
            callee = f"kfunc {reloc}"
        if callee:
            found.setdefault((section, func), set()).add(callee)
    return found


def main(vmlinux_h, *objs):
    names = helper_names(vmlinux_h)
    bad = 0
    for obj in objs:
        for (section, func), callees in sorted(calls(obj, names).items()):
            wrong = sorted(callees - ALLOWED.keys())
            bad += len(wrong)
            print(f"{obj} {section} {func}: {' '.join(sorted(callees))}")
            for c in wrong:
                print(f"FAIL {obj} {func} calls {c}: not on the read-only list")
    print(f"bpf helpers: {'no' if not bad else bad} call(s) outside the read-only list "
          f"({', '.join(sorted(ALLOWED))})")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: bpf_helpers.py VMLINUX_H OBJ...")
    sys.exit(main(*sys.argv[1:]))
