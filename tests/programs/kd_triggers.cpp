// A program with USDT probes (provider "kdtest") and a function for uprobes
// around a section of known work, for kdelay's trigger tests.
//
//   kd_triggers ITERATIONS LONG_MS SHORT_MS [GAP_MS]
//
// Iteration i runs kd_work_section(): USDT kdtest:work_start, exactly 100
// getppid() calls and one nanosleep() of LONG_MS (even i) or SHORT_MS (odd
// i), then USDT kdtest:work_end. Between sections: 50 getpid() calls, a
// clock_nanosleep() of GAP_MS (default 20), so a sample that leaks outside
// a section shows getpid, and one getpgrp() just before the next section:
// a kernel function that runs once a section, for kprobe triggers (getppid
// runs 100 times, so a trigger armed mid-section would fire inside one).
// ITERATIONS 0 runs forever.
//
// Both probes have semaphores and fire only while theirs is raised, as
// probes with costly arguments do: a tracer that does not raise it (the
// kernel does, for an uprobe given the semaphore's offset) sees nothing.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#include <sys/syscall.h>
#include <unistd.h>

extern "C" {
volatile unsigned short kdtest_work_start_semaphore __attribute__((section(".probes"), used));
volatile unsigned short kdtest_work_end_semaphore __attribute__((section(".probes"), used));
}

extern "C" __attribute__((noinline, used)) void kd_work_section(long i, long ms)
{
    if (kdtest_work_start_semaphore)
        STAP_PROBE1(kdtest, work_start, i);
    for (int n = 0; n < 100; ++n)
        syscall(SYS_getppid);
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    syscall(SYS_nanosleep, &ts, nullptr);
    if (kdtest_work_end_semaphore)
        STAP_PROBE1(kdtest, work_end, i);
}

int main(int argc, char** argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: kd_triggers ITERATIONS LONG_MS SHORT_MS [GAP_MS]\n");
        return 64;
    }
    const long iterations = atol(argv[1]);
    const long long_ms = atol(argv[2]), short_ms = atol(argv[3]);
    const long gap_ms = argc > 4 ? atol(argv[4]) : 20;
    printf("ready\n");
    fflush(stdout);
    for (long i = 0; iterations == 0 || i < iterations; ++i) {
        syscall(SYS_getpgrp);
        kd_work_section(i, i % 2 == 0 ? long_ms : short_ms);
        for (int n = 0; n < 50; ++n)
            syscall(SYS_getpid);
        struct timespec gap = {gap_ms / 1000, (gap_ms % 1000) * 1000000L};
        clock_nanosleep(CLOCK_MONOTONIC, 0, &gap, nullptr);
    }
    printf("done\n");
    fflush(stdout);
    return 0;
}
