#!/usr/bin/python3
# verified_insns.py KDELAY [ARGS...]: the instructions the kernel's verifier
# processed for each eBPF program that KDELAY loads with ARGS (its
# verified_insns in /proc/PID/fdinfo), watching an idle process. A program
# fails to load past 1,000,000, and the count for one source moves with the
# compiler (Debian 13's clang took sched_switch past it where Debian 12's
# stayed at 408,052), so compare builds in the same run:
#   for k in OLD/kdelay build/kdelay; do bench/verified_insns.py $k --stall 1s; done
import os
import signal
import subprocess
import sys

from prog_costs import SYS_PIDFD_GETFD, libc, prog_name


def verified(pid):
    pidfd = os.pidfd_open(pid)
    counts = []
    for fd in sorted(os.listdir(f"/proc/{pid}/fdinfo"), key=int):
        try:
            with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                fields = dict(line.split(":\t", 1) for line in f if ":\t" in line)
        except OSError:
            continue
        if "verified_insns" in fields:
            copy = libc.syscall(SYS_PIDFD_GETFD, pidfd, int(fd), 0)
            counts.append((prog_name(copy) if copy >= 0 else "?", int(fields["verified_insns"])))
            if copy >= 0:
                os.close(copy)
    os.close(pidfd)
    return counts


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: verified_insns.py KDELAY [ARGS...]")
    idle = subprocess.Popen(["sleep", "600"])
    kdelay = subprocess.Popen([sys.argv[1], "-p", str(idle.pid), *sys.argv[2:]], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        for line in kdelay.stdout:  # every program is attached before the start marker
            if line.startswith("# Start"):
                break
        else:
            sys.exit(f"{sys.argv[1]} {' '.join(sys.argv[2:])}: exited before it started (exit {kdelay.wait()})")
        for name, insns in verified(kdelay.pid):
            print(f"{name:16s} {insns:9d}")
    finally:
        kdelay.send_signal(signal.SIGINT)
        kdelay.wait()
        idle.kill()
        idle.wait()


if __name__ == "__main__":
    main()
