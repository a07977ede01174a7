// Planted stalls for kdelay's --stall tests. After "ready", it waits for
// SIGUSR1, plants COUNT stalls about a second apart, prints "done" and
// exits.
//
//   kd_stall poll COUNT [rival | twice | thrice | gap | busy]
//       "kd-staller" (CPU 0) polls with a 1 ms timeout; each stall is, between
//       two polls, 100 ms of its own CPU time spinning, then a 150 ms
//       nanosleep. "kd-quiet" (CPU 1) polls with 1 ms timeouts and never
//       stalls. With rival, "kd-rival" spins on CPU 0 all along, so each
//       stall also waits for the CPU behind it. With twice (thrice), each
//       stall is followed by one (two) more, each after a single poll that
//       does not wait: it begins microseconds after the last one ends.
//       With gap, each stall is followed by a short interval (between two
//       polls that do not wait) and a second stall.
//       With busy, every short interval also makes 50 getppid() calls
//       (bench/stall.sh: some 100,000 syscalls a second).
//   kd_stall inner COUNT
//       "kd-staller" waits in a poll of two pipes (1 ms timeout) between
//       short intervals; each stall is four chunks of 60 ms of CPU time,
//       each after a poll(&latch, 1, 0) and an epoll_wait(.., 0) that never
//       block, from call sites of their own (as Open vSwitch's
//       latch_is_set() and dpif_netlink_recv()): one interval of 240 ms.
//   kd_stall immediate COUNT
//       Each stall is two of 250 ms of CPU time between the loop's polls,
//       the one between them with timeout 0 (as Open vSwitch's poll_block()
//       after poll_immediate_wake()): two stalls, not one of 500 ms.
//   kd_stall stopped COUNT CGROUP
//       The process moves to the cgroup2 directory CGROUP. A child stops
//       it (SIGSTOP, then SIGCONT 1.2 s later), traces it (PTRACE_SEIZE and
//       PTRACE_INTERRUPT, detaching 1.2 s later), then freezes CGROUP for
//       1.2 s, while "kd-staller" blocks in its loop's wait of 2.5 s: in
//       poll(), ppoll(), epoll_wait() and select() in turn. None of those is
//       a stall. Then
//       COUNT stalls: 100 ms of CPU time with a 700 ms stop inside, and a
//       300 ms sleep.
//   kd_stall churn THREADS
//       THREADS threads are made and joined one after another, each exiting
//       inside an interval (after a loop's poll that does not wait); then a
//       new thread "kd-late" plants one stall of 100 ms CPU and 200 ms sleep.
//   kd_stall reuse
//       "kd-dying" exits 50 ms into an interval; 300 ms later a thread made
//       with clone3's set_tid takes its tid and polls: no stall. Prints
//       "reused TID" (or "reuse failed").
//   kd_stall usdt COUNT
//       "kd-loop-a" and "kd-loop-b" each run loops framed by the USDT probes
//       kdstall:loop_start and kdstall:loop_end (1 ms asleep each), their
//       loops interleaving. a plants the stalls (spin 50 ms, sleep 250 ms),
//       b plants one 220 ms loop that begins 100 ms into a's first: two
//       threads stalling at once. With lost, a's first loop after SIGUSR1
//       leaves without loop_end (as an exception would) after 250 ms.
//
// Output: "ready" (usdt: then "loops TID_A TID_B"), a line per stall
// as it ends (poll: each followed by "switches VOLUNTARY INVOLUNTARY", its
// context switches between its clock reads, by getrusage()):
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
#include <linux/sched.h>
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <string>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/sdt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpu_steal.h"
#include "clocks.h"
#include "pin_cpu.h"

namespace {

std::atomic<bool> g_stop{false};
volatile sig_atomic_t g_go = 0;
pthread_mutex_t g_print = PTHREAD_MUTEX_INITIALIZER;

pid_t gettid_() { return static_cast<pid_t>(syscall(SYS_gettid)); }

void print_stall(pid_t tid, uint64_t start, uint64_t end, uint64_t cpu, uint64_t steal)
{
    pthread_mutex_lock(&g_print);
    printf("stall %d %lu %lu %lu %lu\n", tid, start, end, cpu, steal);
    fflush(stdout);
    pthread_mutex_unlock(&g_print);
}

// The fds the loop's wait polls (inner: two pipes that stay empty).
pollfd g_wait_fds[2];
nfds_t g_wait_nfds = 0;

// What the loop's waits returned: a use of their results, so that none is
// a tail call (which leaves no return address of its own on the stack).
volatile long g_waits_returned = 0;

// The loop's wait, as Open vSwitch's time_poll(): every wait of a loop
// calls poll() from this one place, which --stall's intervals are bounded by.
// noclone: gcc 15 made a copy for the constant timeout of poll_once(), a
// function of its own and so a site of its own (a limit of the rule: the
// first stall that ends at a site not yet seen blocking goes unreported).
__attribute__((noinline, noclone)) void loop_poll(int timeout_ms)
{
    g_waits_returned = g_waits_returned + poll(g_wait_nfds ? g_wait_fds : nullptr, g_wait_nfds, timeout_ms);
}

// kd_stall poll COUNT busy: calls made in every short interval.
int g_calls_between_polls = 0;

void poll_once()
{
    loop_poll(1);
    for (int i = 0; i < g_calls_between_polls; ++i)
        syscall(SYS_getppid);
}

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
    long voluntary, involuntary;  // the thread's context switches, as getrusage() counts them
};

// The thread's context switches so far (RUSAGE_THREAD, as Open vSwitch reads them).
void context_switches(long& voluntary, long& involuntary)
{
    rusage u{};
    getrusage(RUSAGE_THREAD, &u);
    voluntary = u.ru_nvcsw;
    involuntary = u.ru_nivcsw;
}

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
    long voluntary0, involuntary0;
    context_switches(voluntary0, involuntary0);
    s.start = now_ns();
    const uint64_t cpu0 = cpu_ns();
    spin_cpu_ms(100);
    sleep_ms(150);
    s.cpu = cpu_ns() - cpu0;
    s.end = now_ns();
    context_switches(s.voluntary, s.involuntary);
    s.voluntary -= voluntary0;
    s.involuntary -= involuntary0;
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
        {
            print_stall(gettid_(), stalls[k].start, stalls[k].end, stalls[k].cpu, steal);
            printf("switches %ld %ld\n", stalls[k].voluntary, stalls[k].involuntary);
        }
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
    bool lost_stop = false;  // a first loop without its loop_end
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
    if (l->lost_stop) {
        STAP_PROBE(kdstall, loop_start);
        sleep_ms(250);
    }
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

// ---- inner, immediate: loops shaped like Open vSwitch's ----

// A second of short intervals of the loop.
void short_intervals()
{
    for (const uint64_t until = now_ns() + 1000000000ull; now_ns() < until;)
        poll_once();
}

int g_latch[2];

// As Open vSwitch's latch_is_set(): a poll that never waits.
__attribute__((noinline, noclone)) bool latch_is_set()
{
    pollfd p{g_latch[0], POLLIN, 0};
    return poll(&p, 1, 0) > 0;
}

// As dpif_netlink_recv() between upcall batches: an epoll_wait that never waits.
__attribute__((noinline, noclone)) int recv_batch(int ep)
{
    epoll_event ev{};
    return epoll_wait(ep, &ev, 1, 0);
}

void plant_inner(int count)
{
    prctl(PR_SET_NAME, "kd-staller");
    int a[2], b[2];
    if (pipe(g_latch) != 0 || pipe(a) != 0 || pipe(b) != 0)
        exit(71);
    g_wait_fds[0] = {a[0], POLLIN, 0};
    g_wait_fds[1] = {b[0], POLLIN, 0};
    g_wait_nfds = 2;
    const int ep = epoll_create1(0);
    for (int i = 0; i < count; ++i) {
        short_intervals();
        Stall s{};
        s.start = now_ns();
        const uint64_t cpu0 = cpu_ns();
        for (int chunk = 0; chunk < 4; ++chunk) {
            latch_is_set();
            recv_batch(ep);
            spin_cpu_ms(60);
        }
        s.cpu = cpu_ns() - cpu0;
        s.end = now_ns();
        poll_once();
        print_stall(gettid_(), s.start, s.end, s.cpu, 0);
    }
    for (int i = 0; i < 5; ++i)
        poll_once();
}

void plant_immediate(int count)
{
    prctl(PR_SET_NAME, "kd-staller");
    for (int i = 0; i < count; ++i) {
        short_intervals();
        Stall s[2]{};
        for (int k = 0; k < 2; ++k) {
            s[k].start = now_ns();
            const uint64_t cpu0 = cpu_ns();
            spin_cpu_ms(250);
            s[k].cpu = cpu_ns() - cpu0;
            s[k].end = now_ns();
            loop_poll(k == 0 ? 0 : 1);  // the first: an immediate wake, no wait
        }
        for (const Stall& x : s)
            print_stall(gettid_(), x.start, x.end, x.cpu, 0);
    }
    for (int i = 0; i < 5; ++i)
        poll_once();
}

// ---- stopped: a stop inside the loop's wait is no stall ----

enum class Wait { poll, ppoll, epoll, select };

// The loop's wait of each kind, each from its own call site.
__attribute__((noinline, noclone)) void loop_wait(Wait kind, int ep, int timeout_ms)
{
    timespec ts = {timeout_ms / 1000, (timeout_ms % 1000) * 1000000L};
    timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000L};
    epoll_event ev{};
    long r = 0;
    switch (kind) {
    case Wait::poll: r = poll(nullptr, 0, timeout_ms); break;
    case Wait::ppoll: r = ppoll(nullptr, 0, &ts, nullptr); break;
    case Wait::epoll: r = epoll_wait(ep, &ev, 1, timeout_ms); break;
    case Wait::select: r = select(0, nullptr, nullptr, nullptr, &tv); break;
    }
    g_waits_returned = g_waits_returned + r;
}

// A child that stops this process when asked: each request is a delay and
// a length, in ms, and how: SIGSTOP and SIGCONT, a tracer's PTRACE_SEIZE
// and PTRACE_INTERRUPT (as gdb attaching) then detaching, or freezing the
// cgroup the process is in (as docker pause does).
enum class Stop : uint32_t { signal, trace, freeze };

struct StopRequest {
    uint32_t delay_ms, length_ms;
    Stop how;
};

void write_file(const std::string& path, const char* text)
{
    FILE* f = fopen(path.c_str(), "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        _exit(71);
}

// Whether the cgroup says all its tasks are frozen, asked each ms.
bool frozen_within(const std::string& cgroup, int ms)
{
    for (int i = 0; i < ms; ++i, sleep_ms(1)) {
        FILE* f = fopen((cgroup + "/cgroup.events").c_str(), "r");
        char line[64];
        bool frozen = false;
        while (f && fgets(line, sizeof(line), f))
            frozen = frozen || strcmp(line, "frozen 1\n") == 0;
        if (f)
            fclose(f);
        if (frozen)
            return true;
    }
    return false;
}

// The child is forked before the process moves to `cgroup`, so it is not
// frozen with it.
int start_stopper(const std::string& cgroup)
{
    int fds[2];
    if (pipe(fds) != 0)
        exit(71);
    const pid_t parent = getpid();
    if (fork() == 0) {
        close(fds[1]);
        StopRequest r{};
        while (read(fds[0], &r, sizeof(r)) == static_cast<ssize_t>(sizeof(r))) {
            sleep_ms(r.delay_ms);
            if (r.how == Stop::freeze) {
                write_file(cgroup + "/cgroup.freeze", "1");
                if (!frozen_within(cgroup, 1000))
                    _exit(71);  // and the process dies of SIGPIPE at its next request
                sleep_ms(r.length_ms);
                write_file(cgroup + "/cgroup.freeze", "0");
            } else if (r.how == Stop::trace) {
                // The main thread, where the loop's wait is.
                if (ptrace(PTRACE_SEIZE, parent, nullptr, nullptr) != 0 ||
                    ptrace(PTRACE_INTERRUPT, parent, nullptr, nullptr) != 0)
                    _exit(71);
                waitpid(parent, nullptr, __WALL);
                sleep_ms(r.length_ms);
                ptrace(PTRACE_DETACH, parent, nullptr, nullptr);
            } else {
                kill(parent, SIGSTOP);
                sleep_ms(r.length_ms);
                kill(parent, SIGCONT);
            }
        }
        _exit(0);
    }
    close(fds[0]);
    return fds[1];
}

void request_stop(int stopper, uint32_t delay_ms, uint32_t length_ms, Stop how = Stop::signal)
{
    const StopRequest r{delay_ms, length_ms, how};
    if (write(stopper, &r, sizeof(r)) != static_cast<ssize_t>(sizeof(r)))
        exit(71);
}

void plant_stopped(int count, int stopper)
{
    prctl(PR_SET_NAME, "kd-staller");
    const int ep = epoll_create1(0);
    for (Wait kind : {Wait::poll, Wait::ppoll, Wait::epoll, Wait::select}) {
        for (int i = 0; i < 20; ++i)
            loop_wait(kind, ep, 1);  // it blocks here: the loop's wait
        request_stop(stopper, 300, 1200);
        loop_wait(kind, ep, 2500);
        request_stop(stopper, 300, 1200, Stop::trace);
        loop_wait(kind, ep, 2500);
        request_stop(stopper, 300, 1200, Stop::freeze);
        loop_wait(kind, ep, 2500);
    }
    for (int i = 0; i < count; ++i) {
        for (int k = 0; k < 200; ++k)
            loop_wait(Wait::poll, ep, 1);
        Stall s{};
        s.start = now_ns();
        const uint64_t cpu0 = cpu_ns();
        request_stop(stopper, 30, 700);
        spin_cpu_ms(100);
        sleep_ms(300);
        s.cpu = cpu_ns() - cpu0;
        s.end = now_ns();
        loop_wait(Wait::poll, ep, 1);
        print_stall(gettid_(), s.start, s.end, s.cpu, 0);
    }
    for (int i = 0; i < 5; ++i)
        loop_wait(Wait::poll, ep, 1);
    close(stopper);
    wait(nullptr);
}

// ---- churn and reuse: thread lifetimes ----

void* churner(void*)
{
    loop_poll(0);  // never waits: its return begins an interval, which the exit cuts
    return nullptr;
}

void* late(void*)
{
    prctl(PR_SET_NAME, "kd-late");
    for (int i = 0; i < 50; ++i)
        poll_once();
    const Stall s = poll_stall(false, 1);
    print_stall(gettid_(), s.start, s.end, s.cpu, 0);
    for (int i = 0; i < 5; ++i)
        poll_once();
    return nullptr;
}

void plant_churn(long threads)
{
    for (long i = 0; i < threads; ++i) {
        pthread_t t;
        if (pthread_create(&t, nullptr, churner, nullptr) != 0)
            exit(71);
        pthread_join(t, nullptr);
    }
    pthread_t t;
    pthread_create(&t, nullptr, late, nullptr);
    pthread_join(t, nullptr);
}

std::atomic<pid_t> g_dying{0};

void* dying(void*)
{
    prctl(PR_SET_NAME, "kd-dying");
    g_dying = gettid_();
    for (int i = 0; i < 20; ++i)
        poll_once();
    spin_cpu_ms(50);  // inside the interval the last poll began
    return nullptr;
}

std::atomic<bool> g_reused_done{false};

// The thread made with the dead thread's tid: it polls, and exits. It runs
// outside pthreads, on a stack of its own, with this process's TLS.
[[noreturn]] void reused_thread()
{
    prctl(PR_SET_NAME, "kd-reused");
    for (int i = 0; i < 20; ++i)
        poll_once();
    g_reused_done = true;
    for (;;)
        syscall(SYS_exit, 0);
}

alignas(16) char g_reused_stack[256 * 1024];

// A thread of this process with tid `tid` (clone3's set_tid) running
// reused_thread(); false, with errno, when clone3 fails.
bool run_thread_with_tid(pid_t tid)
{
    clone_args args{};
    args.flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;
    pid_t want = tid;
    args.set_tid = reinterpret_cast<uint64_t>(&want);
    args.set_tid_size = 1;
    args.stack = reinterpret_cast<uint64_t>(g_reused_stack);
    args.stack_size = sizeof(g_reused_stack);
    // The child starts on its own stack right after the syscall: it must
    // call into C++ before touching anything of this frame.
    long r;
    asm volatile("syscall\n\t"
                 "test %%rax, %%rax\n\t"
                 "jnz 1f\n\t"
                 "call *%[fn]\n\t"
                 "1:\n\t"
                 : "=a"(r)
                 : "a"(static_cast<long>(SYS_clone3)), "D"(&args), "S"(sizeof(args)),
                   [fn] "r"(reused_thread)
                 : "rcx", "r11", "memory");
    if (r < 0) {
        errno = static_cast<int>(-r);
        return false;
    }
    while (!g_reused_done)
        sleep_ms(1);
    return r == tid;
}

void plant_reuse()
{
    pthread_t t;
    pthread_create(&t, nullptr, dying, nullptr);
    pthread_join(t, nullptr);
    sleep_ms(300);
    bool reused = false;
    for (int i = 0; i < 2000 && !reused; ++i) {
        reused = run_thread_with_tid(g_dying);
        if (!reused && errno != EEXIST)
            break;
        if (!reused)
            sleep_ms(1);
    }
    if (reused)
        printf("reused %d\n", g_dying.load());
    else
        printf("reuse failed: %s\n", strerror(errno));
    fflush(stdout);
    // No poll after this: this thread's interval since its last poll is a
    // real stall (when SIGUSR1 came between two polls), which the exit ends
    // unreported.
}

}  // namespace

int main(int argc, char** argv)
{
    const std::string mode = argc > 1 ? argv[1] : "";
    const bool known = mode == "poll" || mode == "usdt" || mode == "inner" || mode == "immediate" ||
                       mode == "stopped" || mode == "churn" || mode == "reuse";
    if (!known || (argc < 3 && mode != "reuse") || (mode == "stopped" && argc < 4)) {
        fprintf(stderr, "usage: kd_stall poll COUNT [rival | twice | thrice | gap | busy] | kd_stall "
                        "inner|immediate|usdt COUNT | kd_stall stopped COUNT CGROUP | kd_stall churn THREADS | kd_stall reuse\n");
        return 64;
    }
    const int count = argc > 2 ? atoi(argv[2]) : 0;
    signal(SIGUSR1, [](int) { g_go = 1; });
    if (mode != "poll" && mode != "usdt") {
        // Forked before any thread and before "ready", so kdelay's -p
        // never sees it.
        const int stopper = mode == "stopped" ? start_stopper(argv[3]) : -1;
        if (mode == "stopped")
            write_file(std::string(argv[3]) + "/cgroup.procs", std::to_string(getpid()).c_str());
        printf("ready\n");
        fflush(stdout);
        while (!g_go)
            poll_once();
        if (mode == "inner")
            plant_inner(count);
        else if (mode == "immediate")
            plant_immediate(count);
        else if (mode == "stopped")
            plant_stopped(count, stopper);
        else if (mode == "churn")
            plant_churn(atol(argv[2]));
        else
            plant_reuse();
    } else if (mode == "poll") {
        if (argc > 3 && strcmp(argv[3], "busy") == 0)
            g_calls_between_polls = 50;
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
        a.lost_stop = argc > 3 && strcmp(argv[3], "lost") == 0;
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
