#!/usr/bin/python3
# prog_costs.py PID [SECONDS]: the average cost of each eBPF program that
# process PID holds, over SECONDS (default 3), as ns per run, with its
# length as the verifier left it (instructions, before the JIT). Needs root and
# kernel.bpf_stats_enabled=1 (which adds two clock reads to every run, so
# compare programs measured the same way). Names come from the kernel
# (BPF_OBJ_GET_INFO_BY_FD on a copy of the fd taken with pidfd_getfd).
import ctypes
import os
import struct
import sys
import time

SYS_BPF, SYS_PIDFD_GETFD = 321, 438  # x86_64
BPF_OBJ_GET_INFO_BY_FD = 15
NAME_AT = 64  # offsetof(struct bpf_prog_info, name)
XLATED_LEN_AT = 20  # offsetof(struct bpf_prog_info, xlated_prog_len)

libc = ctypes.CDLL(None, use_errno=True)


def prog_info(fd):
    """The program's name and its length after the verifier, in instructions."""
    info = ctypes.create_string_buffer(256)
    attr = ctypes.create_string_buffer(struct.pack("IIQ", fd, 256, ctypes.addressof(info)), 128)
    if libc.syscall(SYS_BPF, BPF_OBJ_GET_INFO_BY_FD, attr, 128) != 0:
        return "?", 0
    xlated_bytes = struct.unpack_from("I", info.raw, XLATED_LEN_AT)[0]
    return info.raw[NAME_AT:NAME_AT + 16].split(b"\0")[0].decode(), xlated_bytes // 8


def run_stats(pid):
    stats = {}
    for fd in os.listdir(f"/proc/{pid}/fdinfo"):
        try:
            fields = dict(line.split(":\t", 1) for line in open(f"/proc/{pid}/fdinfo/{fd}") if ":\t" in line)
        except OSError:
            continue
        if "run_cnt" in fields:
            stats[int(fd)] = (int(fields["run_time_ns"]), int(fields["run_cnt"]))
    return stats


def main():
    pid, seconds = int(sys.argv[1]), float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
    pidfd = os.pidfd_open(pid)
    before = run_stats(pid)
    time.sleep(seconds)
    after = run_stats(pid)
    for fd, (ns, runs) in sorted(after.items()):
        ns0, runs0 = before.get(fd, (0, 0))
        if runs > runs0:
            copy = libc.syscall(SYS_PIDFD_GETFD, pidfd, fd, 0)
            name, insns = prog_info(copy) if copy >= 0 else ("?", 0)
            print(f"{name:16s} {(ns - ns0) // (runs - runs0):6d} ns/run {runs - runs0:10d} runs {insns:6d} insns")


if __name__ == "__main__":
    main()
