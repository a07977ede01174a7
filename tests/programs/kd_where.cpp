// Stalls whose CPU time goes to known functions, for --profile's tests.
// Built with frame pointers (-O2 -fno-omit-frame-pointer): a frame-pointer
// walk of its own code is whole.
//
//   kd_where COUNT
//       After "ready" and SIGUSR1, the main thread ("kd-where") runs a
//       second of short intervals between polls with a 1 ms timeout, then
//       a stall between two polls: 600 ms of its CPU time in work_a(),
//       300 ms in work_b(), and about 100 ms in the kernel reading
//       /dev/urandom (read_random()), then a sleep of 50 ms (wait_here(),
//       glibc's clock_nanosleep()); COUNT times, then "done".
//
// Output: "ready", then for each stall
//   stall TID START_NS END_NS CPU_NS A_NS B_NS KERNEL_NS
// (CLOCK_MONOTONIC after the poll that began it and before the one that
// ended it; the thread's CPU time in all, in work_a, in work_b and in
// read_random), then, 3 s of short intervals later, "done".
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "clocks.h"

namespace {

volatile sig_atomic_t g_go = 0;
volatile uint64_t g_sink = 0;

// Work with no call inside: every sample of it is in this function. The
// clock is read every 500,000 rounds (some 0.7 ms): a thread CPU clock is
// a syscall, and under kdelay's syscall probes a few microseconds (every
// 30 us, they took 7% of the samples).
__attribute__((noinline, noclone)) uint64_t spin_here(uint64_t ns)
{
    const uint64_t end = cpu_ns() + ns;
    uint64_t x = g_sink;
    do {
        for (int i = 0; i < 500000; ++i)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
        g_sink = x;
    } while (cpu_ns() < end);
    return x;
}

__attribute__((noinline, noclone)) uint64_t work_a(uint64_t ns) { return spin_here(ns) + 1; }
__attribute__((noinline, noclone)) uint64_t work_b(uint64_t ns) { return spin_here(ns) + 2; }

// Kernel work: the CPU goes to the random pool's generator.
__attribute__((noinline, noclone)) void read_random(int fd, uint64_t ns)
{
    static char buf[1 << 16];
    const uint64_t end = cpu_ns() + ns;
    while (cpu_ns() < end)
        if (read(fd, buf, sizeof(buf)) <= 0)
            exit(71);
}

__attribute__((noinline, noclone)) void loop_wait() { poll(nullptr, 0, 1); }

// A wait inside the stall, for its stack: through glibc, which keeps no
// frame pointer.
__attribute__((noinline, noclone)) void wait_here()
{
    const timespec ts{0, 50'000'000};
    clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr);
    asm volatile("" ::: "memory");  // not a tail call
}

__attribute__((noinline, noclone)) void one_stall(int fd)
{
    const uint64_t start = now_ns(), cpu0 = cpu_ns();
    work_a(600'000'000);
    const uint64_t a = cpu_ns();
    work_b(300'000'000);
    const uint64_t b = cpu_ns();
    read_random(fd, 100'000'000);
    const uint64_t k = cpu_ns();
    wait_here();
    const uint64_t end = now_ns();
    loop_wait();
    printf("stall %ld %lu %lu %lu %lu %lu %lu\n", syscall(SYS_gettid), start, end, k - cpu0, a - cpu0, b - a, k - b);
    fflush(stdout);
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 2 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: kd_where COUNT\n");
        return 64;
    }
    const int fd = open("/dev/urandom", O_RDONLY);
    if (fd < 0)
        return 71;
    prctl(PR_SET_NAME, "kd-where");
    signal(SIGUSR1, [](int) { g_go = 1; });
    printf("ready\n");
    fflush(stdout);
    while (!g_go)
        loop_wait();
    for (int i = 0; i < atoi(argv[1]); ++i) {
        for (const uint64_t until = now_ns() + 1'000'000'000ull; now_ns() < until;)
            loop_wait();
        one_stall(fd);
    }
    // Short intervals for 3 s more: kdelay symbolizes a stall's stacks in
    // the process, which must still be there (an emulated guest reads a
    // stall a second or more after it ends).
    for (const uint64_t until = now_ns() + 3'000'000'000ull; now_ns() < until;)
        loop_wait();
    printf("done\n");
    fflush(stdout);
    return 0;
}
