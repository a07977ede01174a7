// Two threads hand a turn back and forth as fast as they can, for kdelay's
// scheduler-path benchmark: every round trip is two wakeups and two context
// switches.
//
//   ctx_storm pipe1|pipe2|pipe|poll1|poll2|futex|getppid SECONDS [WARMUP]
//     pipe1    a byte over two pipes, both threads on CPU 0
//     pipe2    the same, the threads on CPUs 0 and 1
//     pipe     the same, unpinned: the scheduler places the threads
//     poll1    pipe1, each read after a poll() that waits for it: an event
//              loop, whose every turn is a --stall interval
//     poll2    the same on CPUs 0 and 1
//     futex    a shared word and futex(2) wait/wake, on CPUs 0 and 1
//     getppid  no second thread: one thread calls getppid() (the syscall
//              path alone), counted per call
//     work     no second thread: after one poll() that sleeps 1 ms, one
//              thread on CPU 0 runs chunks of arithmetic (about 10 us each)
//              and no syscall: a CPU-bound target inside one --stall
//              interval, where --profile keeps every sample; per chunk
//   Prints "round_trips_per_sec N" (getppid: "calls_per_sec N", work:
//   "chunks_per_sec N") over SECONDS,
//   after WARMUP seconds (0) uncounted: time for a tracer started alongside
//   to attach.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>

#include "pin_cpu.h"

namespace {

std::string g_mode;
int g_ping[2], g_pong[2];
std::atomic<int> g_turn{0};
std::atomic<bool> g_stop{false};
long g_round_trips = 0;

void futex_wait_for(int me)
{
    while (g_turn.load() != me)
        syscall(SYS_futex, reinterpret_cast<int*>(&g_turn), FUTEX_WAIT_PRIVATE, 1 - me, nullptr, nullptr, 0);
}

void futex_hand_over(int me)
{
    g_turn.store(1 - me);
    syscall(SYS_futex, reinterpret_cast<int*>(&g_turn), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

bool polling() { return g_mode == "poll1" || g_mode == "poll2"; }

// About 10 us of arithmetic that the compiler cannot fold.
void work_chunk()
{
    static volatile uint64_t sink;
    uint64_t x = sink;
    for (int i = 0; i < 4000; ++i)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink = x;
}

// A byte from fd, after waiting for it in poll() when polling.
bool receive(int fd, char& c)
{
    pollfd p{fd, POLLIN, 0};
    if (polling() && poll(&p, 1, -1) != 1)
        return false;
    return read(fd, &c, 1) == 1;
}

void* responder(void*)
{
    if (g_mode != "pipe")
        pin_to_cpu(g_mode == "pipe1" || g_mode == "poll1" ? 0 : 1);
    char c;
    for (;;) {
        if (g_mode == "futex") {
            futex_wait_for(1);
            if (g_stop.load())
                return nullptr;
            futex_hand_over(1);
        } else {
            if (!receive(g_ping[0], c) || c == 'q')
                return nullptr;
            if (write(g_pong[1], &c, 1) != 1)
                return nullptr;
        }
    }
}

}  // namespace

int main(int argc, char** argv)
{
    const char* usage = "usage: ctx_storm pipe1|pipe2|pipe|poll1|poll2|futex|getppid|work SECONDS [WARMUP]\n";
    if (argc != 3 && argc != 4) {
        fputs(usage, stderr);
        return 64;
    }
    g_mode = argv[1];
    const double seconds = atof(argv[2]);
    const double warmup = argc == 4 ? atof(argv[3]) : 0;
    const bool working = g_mode == "work";
    const bool alone = g_mode == "getppid" || working;
    if ((g_mode != "pipe1" && g_mode != "pipe2" && g_mode != "pipe" && !polling() && g_mode != "futex" && !alone) ||
        seconds <= 0) {
        fputs(usage, stderr);
        return 64;
    }
    if (pipe(g_ping) != 0 || pipe(g_pong) != 0)
        return 71;
    if (g_mode != "pipe")
        pin_to_cpu(0);
    if (working) {  // the interval begins where this poll returns
        pollfd p{g_ping[0], POLLIN, 0};
        poll(&p, 1, 1);
    }
    pthread_t t;
    if (!alone)
        pthread_create(&t, nullptr, responder, nullptr);
    timespec start, now, counting_from;
    clock_gettime(CLOCK_MONOTONIC, &start);
    counting_from = start;
    char c = 'x';
    for (;;) {
        for (int i = 0; i < 1000; ++i) {
            if (working) {
                work_chunk();
            } else if (alone) {
                syscall(SYS_getppid);
            } else if (g_mode == "futex") {
                futex_hand_over(0);
                futex_wait_for(0);
            } else if (write(g_ping[1], &c, 1) != 1 || !receive(g_pong[0], c)) {
                return 74;
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        const double at = (now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9;
        if (at < warmup) {
            counting_from = now;
            continue;
        }
        g_round_trips += 1000;
        if (at >= warmup + seconds)
            break;
    }
    const double elapsed =
        (now.tv_sec - counting_from.tv_sec) + (now.tv_nsec - counting_from.tv_nsec) / 1e9;
    if (alone) {
        printf("%s_per_sec %.0f\n", working ? "chunks" : "calls", g_round_trips / elapsed);
        return 0;
    }
    if (g_mode == "futex") {
        g_stop.store(true);
        futex_hand_over(0);
    } else {
        c = 'q';
        if (write(g_ping[1], &c, 1) != 1)
            return 74;
    }
    pthread_join(t, nullptr);
    printf("round_trips_per_sec %.0f\n", g_round_trips / elapsed);
    return 0;
}
