// Planted stalls for kdelay's --stall tests. After "ready", it waits for
// SIGUSR1, plants COUNT stalls about a second apart, prints "done" and
// exits.
//
//   kd_stall poll COUNT [rival | twice | thrice | gap]
//       "kd-staller" (CPU 0) polls with a 1 ms timeout; each stall is, between
//       two polls, 100 ms of its own CPU time spinning, then a 150 ms
//       nanosleep. "kd-quiet" (CPU 1) polls with 1 ms timeouts and never
//       stalls. With rival, "kd-rival" spins on CPU 0 all along, so each
//       stall also waits for the CPU behind it. With twice (thrice), each
//       stall is followed by one (two) more, each after a single poll that
//       does not wait: it begins microseconds after the last one ends.
//       With gap, each stall is followed by a short interval (between two
//       polls that do not wait) and a second stall.
//   kd_stall usdt COUNT
//       "kd-loop-a" and "kd-loop-b" each run loops framed by the USDT probes
//       kdstall:loop_start and kdstall:loop_end (1 ms asleep each), their
//       loops interleaving. a plants the stalls (spin 50 ms, sleep 250 ms),
//       b plants one 220 ms loop that begins 100 ms into a's first: two
//       threads stalling at once.
//
// Output: "ready" (usdt: then "loops TID_A TID_B"), a line per stall
// as it ends:
//   stall TID START_NS END_NS CPU_NS STEAL_NS
//       CLOCK_MONOTONIC after the poll (or loop_start) that began it and
//       before the one that ended it; the thread's CPU time in between; and
//       CPU 0's steal time meanwhile (poll: the staller's CPU), which the
//       thread's CPU clock leaves out and kdelay's RUNNING cannot
// then "done".
#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <poll.h>
#include <pthread.h>
#include <string>
#include <sys/prctl.h>
#include <sys/sdt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpu_steal.h"
#include "pin_cpu.h"

namespace {

std::atomic<bool> g_stop{false};
volatile sig_atomic_t g_go = 0;
pthread_mutex_t g_print = PTHREAD_MUTEX_INITIALIZER;

uint64_t clock_ns(clockid_t clock)
{
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t now_ns() { return clock_ns(CLOCK_MONOTONIC); }
uint64_t cpu_ns() { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }

void sleep_ms(long ms)
{
    timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr);
}

// ms of this thread's own CPU time, however long a busy machine makes it wait.
void spin_cpu_ms(long ms)
{
    const uint64_t end = cpu_ns() + static_cast<uint64_t>(ms) * 1000000ull;
    while (cpu_ns() < end) {
    }
}

pid_t gettid_() { return static_cast<pid_t>(syscall(SYS_gettid)); }

void print_stall(pid_t tid, uint64_t start, uint64_t end, uint64_t cpu, uint64_t steal)
{
    pthread_mutex_lock(&g_print);
    printf("stall %d %lu %lu %lu %lu\n", tid, start, end, cpu, steal);
    fflush(stdout);
    pthread_mutex_unlock(&g_print);
}

// The loop's wait, as Open vSwitch's time_poll(): every wait of a loop
// calls poll() from this one place, which --stall's intervals are bounded by.
__attribute__((noinline)) void loop_poll(int timeout_ms) { poll(nullptr, 0, timeout_ms); }

void poll_once() { loop_poll(1); }

void* quiet(void*)
{
    prctl(PR_SET_NAME, "kd-quiet");
    pin_to_cpu(1);
    while (!g_stop)
        poll_once();
    return nullptr;
}

// From SIGUSR1 on only: a spinner from the start would starve kdelay's
// compile in an emulated guest.
void* rival(void*)
{
    prctl(PR_SET_NAME, "kd-rival");
    pin_to_cpu(0);
    while (!g_go)
        sleep_ms(1);
    while (!g_stop) {
    }
    return nullptr;
}

struct Stall {
    uint64_t start, end, cpu;
};

// One stall between two polls: the first returns before it begins (with
// begin_with_poll; else the last poll made), the second, with a timeout of
// end_poll_ms, is called after it ends. Nothing else runs between the
// polls and the clock reads: /proc/stat's read takes milliseconds in an
// emulated guest.
Stall poll_stall(bool begin_with_poll, int end_poll_ms)
{
    Stall s{};
    if (begin_with_poll)
        poll_once();
    s.start = now_ns();
    const uint64_t cpu0 = cpu_ns();
    spin_cpu_ms(100);
    sleep_ms(150);
    s.cpu = cpu_ns() - cpu0;
    s.end = now_ns();
    loop_poll(end_poll_ms);
    return s;
}

// kd_stall poll: the main thread is the staller; each of its COUNT trains
// is of train stalls back to back, or with a short interval between them
// (gap).
void plant_poll_stalls(int count, int train, bool gap)
{
    prctl(PR_SET_NAME, "kd-staller");
    pin_to_cpu(0);
    for (int i = 0; i < count; ++i) {
        // About a second of short intervals.
        for (const uint64_t until = now_ns() + 1000000000ull; now_ns() < until;)
            poll_once();
        // Steal is read, and the stalls printed, outside them (a train's
        // steal covers all of it).
        const uint64_t steal0 = cpu0_steal_ns();
        Stall stalls[3];
        for (int k = 0; k < train; ++k) {
            if (gap && k > 0)
                loop_poll(0);  // the short interval's end
            stalls[k] = poll_stall(k == 0, k == train - 1 ? 1 : 0);
        }
        const uint64_t steal = cpu0_steal_ns() - steal0;
        for (int k = 0; k < train; ++k)
            print_stall(gettid_(), stalls[k].start, stalls[k].end, stalls[k].cpu, steal);
    }
    // Short intervals again, so that the last stall ends before the exit.
    for (int i = 0; i < 5; ++i)
        poll_once();
}

struct Loops {
    const char* name;
    int count;
    long planted_ms_cpu, planted_ms_sleep;
    long offset_ms;  // the first planted loop, after SIGUSR1
    std::atomic<pid_t> tid{0};
};

void loop_once(long spin_ms, long sleep_ms_, bool report)
{
    const uint64_t steal0 = report ? cpu0_steal_ns() : 0;
    STAP_PROBE(kdstall, loop_start);
    const uint64_t start = now_ns(), cpu0 = cpu_ns();
    if (spin_ms)
        spin_cpu_ms(spin_ms);
    sleep_ms(sleep_ms_);
    const uint64_t cpu = cpu_ns() - cpu0, end = now_ns();
    STAP_PROBE(kdstall, loop_end);
    if (report)
        print_stall(gettid_(), start, end, cpu, cpu0_steal_ns() - steal0);
}

void* loops(void* arg)
{
    auto* l = static_cast<Loops*>(arg);
    prctl(PR_SET_NAME, l->name);
    l->tid = gettid_();
    while (!g_go)
        sleep_ms(1);
    uint64_t next = now_ns() + static_cast<uint64_t>(l->offset_ms) * 1000000ull;
    for (int i = 0; i < l->count; ++i) {
        while (now_ns() < next)
            loop_once(0, 1, false);
        loop_once(l->planted_ms_cpu, l->planted_ms_sleep, true);
        next = now_ns() + 1000000000ull;
    }
    for (int i = 0; i < 5; ++i)
        loop_once(0, 1, false);
    return nullptr;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 3 || (strcmp(argv[1], "poll") != 0 && strcmp(argv[1], "usdt") != 0)) {
        fprintf(stderr, "usage: kd_stall poll COUNT [rival | twice | thrice | gap] | kd_stall usdt COUNT\n");
        return 64;
    }
    const int count = atoi(argv[2]);
    signal(SIGUSR1, [](int) { g_go = 1; });
    if (strcmp(argv[1], "poll") == 0) {
        pthread_t q, r;
        pthread_create(&q, nullptr, quiet, nullptr);
        const bool with_rival = argc > 3 && strcmp(argv[3], "rival") == 0;
        if (with_rival)
            pthread_create(&r, nullptr, rival, nullptr);
        printf("ready\n");
        fflush(stdout);
        while (!g_go)
            poll_once();
        const char* mode = argc > 3 ? argv[3] : "";
        const bool gap = strcmp(mode, "gap") == 0;
        plant_poll_stalls(count, strcmp(mode, "thrice") == 0 ? 3 : strcmp(mode, "twice") == 0 || gap ? 2 : 1, gap);
        g_stop = true;
        pthread_join(q, nullptr);
        if (with_rival)
            pthread_join(r, nullptr);
    } else {
        Loops a{"kd-loop-a", count, 50, 250, 500};
        Loops b{"kd-loop-b", 1, 0, 220, 600};
        pthread_t ta, tb;
        pthread_create(&ta, nullptr, loops, &a);
        pthread_create(&tb, nullptr, loops, &b);
        while (!a.tid || !b.tid)
            sleep_ms(1);
        printf("ready\nloops %d %d\n", a.tid.load(), b.tid.load());
        fflush(stdout);
        pthread_join(ta, nullptr);
        pthread_join(tb, nullptr);
    }
    printf("done\n");
    fflush(stdout);
    return 0;
}
