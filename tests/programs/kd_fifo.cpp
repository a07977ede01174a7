// A thread starved of its CPU by a SCHED_FIFO thread, for kdelay's budget
// test of a thread that shows no event in a window: it waits for its CPU
// all along, and the kernel counts that wait (schedstat's run_delay) only
// once it runs again.
//
//   kd_fifo
//       "kd-starved" spins on CPU 0 at normal priority. After "ready", over
//       and over: "kd-fifo" (SCHED_FIFO, CPU 0) spins 800 ms, holding the
//       CPU (under the 950 ms a second that real-time threads may take);
//       the main thread (CPU 1) fires USDT kdtest:hold_start 100 ms into the
//       hold and kdtest:hold_end 200 ms later: a window in which neither
//       thread on CPU 0 switches, and 500 ms after it for kdelay to read
//       the threads' state (an emulated guest takes hundreds of ms). 150 ms after the hold it reads
//       kd-starved's run_delay again and prints
//         hold START_NS END_NS WINDOW_START_NS WINDOW_END_NS WAITED_NS
//       CLOCK_MONOTONIC around kd-fifo's spin and just before each probe,
//       and kd-starved's run_delay after the hold less before it.
// Needs root (SCHED_FIFO).
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <pthread.h>
#include <sched.h>
#include <string>
#include <sys/prctl.h>
#include <sys/sdt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clocks.h"
#include "pin_cpu.h"

namespace {

int g_ask[2];  // a byte a hold: kd-fifo sleeps in read() between holds, so that it never
               // preempts kd-starved but for the hold
std::atomic<uint64_t> g_hold_start{0}, g_hold_end{0};
std::atomic<pid_t> g_starved{0};

void* starved(void*)
{
    prctl(PR_SET_NAME, "kd-starved");
    pin_to_cpu(0);
    g_starved = static_cast<pid_t>(syscall(SYS_gettid));
    for (;;) {
    }
}

void* fifo(void*)
{
    prctl(PR_SET_NAME, "kd-fifo");
    pin_to_cpu(0);
    sched_param p{};
    p.sched_priority = 10;
    if (sched_setscheduler(0, SCHED_FIFO, &p) != 0) {
        perror("kd_fifo: SCHED_FIFO");
        _exit(77);
    }
    for (char c; read(g_ask[0], &c, 1) == 1;) {
        g_hold_start = now_ns();
        const uint64_t until = g_hold_start + 800'000'000ull;
        while (now_ns() < until) {
        }
        g_hold_end = now_ns();
    }
    return nullptr;
}

}  // namespace

int main()
{
    pin_to_cpu(1);
    if (pipe(g_ask) != 0)
        return 71;
    pthread_t s, f;
    pthread_create(&s, nullptr, starved, nullptr);
    pthread_create(&f, nullptr, fifo, nullptr);
    while (!g_starved)
        sleep_ms(1);
    printf("ready\n");
    fflush(stdout);
    for (;;) {
        const uint64_t before = run_delay(g_starved);
        g_hold_start = 0;
        g_hold_end = 0;
        if (write(g_ask[1], "h", 1) != 1)
            return 71;
        while (!g_hold_start)
            sleep_ms(1);
        sleep_ms(100);
        const uint64_t window_start = now_ns();
        DTRACE_PROBE(kdtest, hold_start);
        sleep_ms(200);
        const uint64_t window_end = now_ns();
        DTRACE_PROBE(kdtest, hold_end);
        while (!g_hold_end)
            sleep_ms(1);
        sleep_ms(150);
        const uint64_t waited = run_delay(g_starved) - before;
        printf("hold %llu %llu %llu %llu %llu\n", static_cast<unsigned long long>(g_hold_start.load()),
               static_cast<unsigned long long>(g_hold_end.load()), static_cast<unsigned long long>(window_start),
               static_cast<unsigned long long>(window_end), static_cast<unsigned long long>(waited));
        fflush(stdout);
    }
}
