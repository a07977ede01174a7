#!/usr/bin/env python3
# Writes delay_report.txt, the golden text of the text writer's test sample, from
# the layout rules of upstream kernel_delay.py as issue 12 states them (widths,
# alignment, separators), in Python's own format language. It shares no code
# with the writer, so the test compares two independent renderings.
#
#   python3 tests/unit/golden/make_delay_report.py > tests/unit/golden/delay_report.txt
import errno
import os

IND = " " * 28
SECTION_LEAD = "{:10} {:16} ".format("", "")


def c(n):
    return "{:,}".format(n)


def section(title, header, rows, first, tid=None, name=None):
    lead = "{:>10} {:16} ".format(tid, name) if first else "\n" + SECTION_LEAD
    out = [lead + title, IND + header]
    out += [IND + r for r in rows]
    return out


syscall_header = "{:20} {:>6}  {:>10}  {:>16}  {:>16}".format(
    "NAME", "NUMBER", "COUNT", "TOTAL ns", "MAX ns")


def syscall_rows(calls, poll_nr=7):
    rows, count, total = [], 0, 0
    for name, nr, n, tot, mx in calls:
        rows.append("{:20.20} {:>6}  {:>10}  {:>16}  {:>16}".format(name, nr, n, c(tot), c(mx)))
        if nr != poll_nr:
            count += n
            total += tot
    if count:
        rows.append("{:20.20} {:6}  {:>10}  {:>16}".format("TOTAL( - poll):", "", count, c(total)))
    return rows



lines = ["{:10} {:16} {}".format("TID", "THREAD", "<RESOURCE SPECIFIC>"),
         "{:10} {:16} {}".format("-" * 10, "-" * 16, "-" * 76)]

# ovs-vswitchd: no syscalls (the header alone), then run time.
lines += section("[SYSCALL STATISTICS]", syscall_header, [], True, 27090, "ovs-vswitchd")
lines += section("[THREAD RUN STATISTICS]",
                 "{:10}  {:>16}  {:>16}  {:>16}".format("SCHED_CNT", "TOTAL ns", "MIN ns", "MAX ns"),
                 ["{:>10}  {:>16}  {:>16}  {:>16}".format(2, c(3000), c(1000), c(2000))], False)
lines.append("")

# revalidator122: every section.
lines += section("[SYSCALL STATISTICS]", syscall_header,
                 syscall_rows([("poll", 7, 5, 184193176, 184191520),
                               ("recvmsg", 47, 494, 125208756, 310331),
                               ("futex", 202, 8, 18768758, 4023039),
                               ("write", 1, 1, 5949, 5949)]), True, 31741, "revalidator122")
lines += section("[LONG POLL STATISTICS]",
                 "{:10}  {:>16}  {:>16}  {:>16}".format("COUNT", "AVERAGE ns", "MIN ns", "MAX ns"),
                 ["{:>10}  {:>16}  {:>16}  {:>16}".format(4, c(500000), c(300000), c(900000))], False)
lines += section("[THREAD RUN STATISTICS]",
                 "{:10}  {:>16}  {:>16}  {:>16}".format("SCHED_CNT", "TOTAL ns", "MIN ns", "MAX ns"),
                 ["{:>10}  {:>16}  {:>16}  {:>16}".format(6, c(136764071), c(1480), c(115146424))], False)
lines += section("[THREAD READY STATISTICS]",
                 "{:10}  {:>16}  {:>16}".format("SCHED_CNT", "TOTAL ns", "MAX ns"),
                 ["{:>10}  {:>16}  {:>16}".format(7, c(11334), c(6636))], False)
lines += section("[THREAD STOPPED STATISTICS]",
                 "{:10}  {:>16}  {:>16}".format("STOP_CNT", "TOTAL ns", "MAX ns"),
                 ["{:>10}  {:>16}  {:>16}".format(1, c(5000000000), c(5000000000))], False)
lines += section("[HARD IRQ STATISTICS]",
                 "{:20}  {:>10}  {:>16}  {:>16}".format("NAME", "COUNT", "TOTAL ns", "MAX ns"),
                 ["{:20.20}  {:>10}  {:>16}  {:>16}".format("eno8303-rx-1", 1, c(3586), c(3586)),
                  "{:20.20}  {:>10}  {:>16}".format("TOTAL:", 1, c(3586))], False)
lines += section("[SOFT IRQ STATISTICS]",
                 "{:20} {:>7}  {:>10}  {:>16}  {:>16}".format("NAME", "VECT_NR", "COUNT", "TOTAL ns", "MAX ns"),
                 ["{:20.20} {:>7}  {:>10}  {:>16}  {:>16}".format("net_rx", 3, 1, c(17699), c(17699)),
                  "{:20.20} {:>7}  {:>10}  {:>16}  {:>16}".format("sched", 7, 6, c(13820), c(3226)),
                  "{:20.20} {:7}  {:>10}  {:>16}".format("TOTAL:", "", 7, c(31519))], False)
# kdelay's own section, in the same style.
lines += section("[BLOCK I/O STATISTICS]",
                 "{:10} {:1}  {:>10}  {:>16}  {:>16}  {:>16}".format("DISK", "T", "COUNT", "BYTES", "TOTAL ns", "MAX ns"),
                 ["{:10.10} {:1}  {:>10}  {:>16}  {:>16}  {:>16}".format("nvme0n1", "W", 16, c(1048576), c(2500000), c(400000)),
                  "{:10.10} {:1}  {:>10}  {:>16}  {:>16}  {:>16}".format("vda", "R", 1, c(4096), c(120000), c(120000))], False)
lines.append("")

# urcu3: poll only, so no TOTAL( - poll) line.
lines += section("[SYSCALL STATISTICS]", syscall_header,
                 syscall_rows([("poll", 7, 1, 10, 10)]), True, 5, "urcu3")


def per_cpu(d):
    return "{} [{}]".format(sum(d.values()), ", ".join("{}: {}".format(k, v) for k, v in sorted(d.items()) if v))


total = {0: 8937, 1: 14466}
ok = {0: 5945, 1: 6379}
failed = {errno.EAGAIN: {0: 2992, 1: 8085}, errno.ENOBUFS: {1: 2}}
all_failed = {0: 2992, 1: 8087}
lines.append("\n\n# UPCALL STATISTICS (TOTAL [CPU_ID: N_UPCALLS_PER_CPU, ...]):")
lines.append("  {:20}: {}".format("Total upcalls", per_cpu(total)))
lines.append("  {:20}: {}".format("Successfull upcalls", per_cpu(ok)))
lines.append("  {:20}: {}".format("Failed upcalls", per_cpu(all_failed)))
for err in sorted(failed):
    lines.append("    {:>3}, {:13}: {}".format(err, errno.errorcode[err], per_cpu(failed[err])))

lines.append("\n\n# SYSCALL EVENTS:")
lines.append("  {:>19} {:>19} {:>10} {:16} {:>10}  {}".format(
    "ENTRY (ns)", "EXIT (ns)", "TID", "COMM", "DELTA (us)", "SYSCALL"))
lines.append("  {:19} {:19} {:10} {:16} {:10}  {}".format(
    "-" * 19, "-" * 19, "-" * 10, "-" * 16, "-" * 10, "-" * 16))
for entry, exit_, tid, comm, name, frames in [
        (2104574887807, 2104580127960, 31741, "revalidator122", "poll",
         ["do_sys_poll+0x1a [kernel]", "[unknown] 0x7f0011"]),
        (1000, 1999, 5, "urcu3", "futex", [])]:
    lines.append("  {:>19} {:>19} {:>10} {:16} {:>10}  {}".format(
        entry, exit_, tid, comm, c((exit_ - entry) // 1000), name))
    lines += [" " * 10 + f for f in frames]

lines.append("# Target process 1 exited; the sample ends here")
lines.append("")
lines.append("# WARNING: the thread map was full; 3 updates were lost and the numbers above are incomplete.")
print("\n".join(lines))
