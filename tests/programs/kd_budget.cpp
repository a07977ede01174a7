// Windows of known thread states, framed by USDT probes, for kdelay's time
// budget tests. The main thread (on CPU 1) repeats, forever:
//   read the workers' CPU clocks and schedstat around kdtest:window_start,
//   run the window, read them again around kdtest:window_end, print what it saw,
//   pause 200 ms.
//
//   kd_budget spinners  "spin-a", "spin-b" busy on CPU 0; 1 s windows
//   kd_budget sleeper   "kd-sleeper" on CPU 0, per window: 5 x (100 ms
//                       clock_nanosleep, 20 ms of its own CPU time spinning); between windows
//                       it waits on a futex, so it is asleep at both edges
//   kd_budget born      per window: "kd-born" is created 100 ms in, sleeps
//                       on a pipe and is joined after the window (300 ms)
//   kd_budget asleep    "kd-asleep" blocks in read() all along; 200 ms windows
//   kd_budget wake      "kd-waiter" waits on a futex that "kd-waker" bumps and
//                       wakes every 50 ms; 300 ms windows, each opened while
//                       both sleep
//   kd_budget three     "spin-a", "spin-b", "spin-c" busy on CPU 0; 1 s windows
//   kd_budget rival     "kd-victim" busy on CPU 0, and a child process "kd-rival"
//                       busy on CPU 0 too; 1 s windows. Prints "rival PID".
//   kd_budget starved   "kd-peer" and, at nice 19, "kd-starved" busy on CPU 0,
//                       and a child process "kd-hog" busy on CPU 0 too; 1 s
//                       windows. kd-starved gets about 1% of the CPU, so it
//                       waits at the window's start and long into it, while
//                       kd-peer and kd-hog take turns. Prints "rival PID".
//   kd_budget flooded   "spin-a", "spin-b" busy on CPU 0, and a child process
//                       whose "kd-sink" (CPU 0) receives a loopback UDP flood
//                       from "kd-flood" (CPU 1): thousands of wakeups a second
//                       preempt the spinners; 1 s windows
//
// Output, per window:
//   window K START_NS END_NS           CLOCK_MONOTONIC at the two probes
//   steal NS                           CPU 0's steal time over the window
//   cpu0_busy NS                       all that ran on CPU 0 over the window,
//                                      the workers or anything else (/proc/stat,
//                                      to a tick)
//   thread NAME TID RUN_LO RUN_HI WAIT_LO WAIT_HI
//                                      over the window, as the kernel counts
//                                      them: the thread's run time (its CPU
//                                      clock, brought up to date by the read)
//                                      and its wait for a CPU (schedstat's
//                                      run_delay, which grows by a whole wait
//                                      when it ends). Each is read just before
//                                      and just after each probe: LO is from
//                                      after the start probe to before the end
//                                      probe, HI from before the one to after
//                                      the other, so that what kdelay saw lies
//                                      between (a wait ending between a read
//                                      and its probe is in HI only).
//   steal_after NS                     CPU 0's steal from the window's start
//                                      to 200 ms after its end (printed then)
//   born_at NS                         (born) just before pthread_create
//   born_by NS                         (born) just after it returned
// schedstat's wait is 0 unless /proc/sys/kernel/sched_schedstats is 1.
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <linux/futex.h>
#include <pthread.h>
#include <string>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sdt.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

#include "loopback_udp.h"
#include "cpu_steal.h"
#include "clocks.h"
#include "pin_cpu.h"

namespace {

struct Worker {
    std::string name;
    std::atomic<pid_t> tid{0};
};

// The thread's CPU time as the kernel charges it (sum_exec_runtime), brought
// up to date by the read: schedstat's copy lags by up to a tick while the
// thread runs, or longer if the host has stopped its vCPU. A thread CPU
// clock is (~tid << 3) | CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED.
uint64_t thread_cpu_ns(pid_t tid)
{
    timespec ts{};
    if (clock_gettime(static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 6), &ts) != 0)
        return 0;
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// What the kernel has counted of a worker so far: its run time and its wait
// for a CPU.
struct Figures {
    uint64_t cpu = 0, wait = 0;
};

std::vector<Figures> read_figures(const std::vector<Worker*>& workers)
{
    std::vector<Figures> all;
    for (const Worker* w : workers)
        all.push_back({thread_cpu_ns(w->tid), run_delay(w->tid)});
    return all;
}

// Until each worker's state (/proc/self/task/TID/stat) is S, asleep.
void wait_until_asleep(const std::vector<Worker*>& workers)
{
    for (;;) {
        bool asleep = true;
        for (const Worker* w : workers) {
            const std::string path = "/proc/self/task/" + std::to_string(w->tid.load()) + "/stat";
            char text[512] = {};
            if (FILE* f = fopen(path.c_str(), "r")) {
                (void)!fread(text, 1, sizeof(text) - 1, f);
                fclose(f);
            }
            const char* paren = strrchr(text, ')');  // the name may hold spaces
            asleep = asleep && paren && paren[1] == ' ' && paren[2] == 'S';
        }
        if (asleep)
            return;
        const timespec ms = {0, 1000000};
        nanosleep(&ms, nullptr);
    }
}

void name_self(Worker* w)
{
    prctl(PR_SET_NAME, w->name.c_str());
    w->tid = static_cast<pid_t>(syscall(SYS_gettid));
}

void* spinner(void* arg)
{
    pin_to_cpu(0);
    name_self(static_cast<Worker*>(arg));
    for (;;) {
    }
    return nullptr;
}

void* starved_spinner(void* arg)
{
    setpriority(PRIO_PROCESS, 0, 19);  // this thread only
    return spinner(arg);
}

// The sleeper's rounds: one per window, started by the main thread.
std::atomic<int> g_round{0}, g_done{0};

void futex_wait(std::atomic<int>& word, int value)
{
    while (word.load() == value)
        syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, value, nullptr, nullptr, 0);
}

void futex_set(std::atomic<int>& word, int value)
{
    word = value;
    syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

void* sleeper(void* arg)
{
    pin_to_cpu(0);
    name_self(static_cast<Worker*>(arg));
    for (int seen = 0;; ++seen) {
        futex_wait(g_round, seen);
        for (int i = 0; i < 5; ++i) {
            sleep_ms(100);
            spin_cpu_ms(20);
        }
        futex_set(g_done, seen + 1);
    }
    return nullptr;
}

int g_pipe[2];
std::atomic<int> g_word{0};

void* waiter(void* arg)
{
    name_self(static_cast<Worker*>(arg));
    for (;;) {
        const int v = g_word.load();
        while (g_word.load() == v)
            syscall(SYS_futex, &g_word, FUTEX_WAIT_PRIVATE, v, nullptr, nullptr, 0);
    }
    return nullptr;
}

void* waker(void* arg)
{
    name_self(static_cast<Worker*>(arg));
    for (;;) {
        sleep_ms(50);
        ++g_word;
        syscall(SYS_futex, &g_word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
    }
    return nullptr;
}

void* reader(void* arg)
{
    name_self(static_cast<Worker*>(arg));
    char c;
    while (read(g_pipe[0], &c, 1) < 0) {
    }
    return nullptr;
}

void wait_named(const Worker& w)
{
    while (!w.tid.load())
        sleep_ms(1);
}

}  // namespace

// The flood's child process: a sink thread on CPU 0 woken by every datagram
// that this thread, on CPU 1, sends it. Each wakeup preempts the spinner
// running there, which makes the kernel skip the clock update of the next
// switch (see rq_time() in bpf/delay/sched.bpf.c).
[[noreturn]] void flood_from_child()
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    sockaddr_in at;
    static int sink_fd = bind_loopback_udp(&at);
    if (sink_fd < 0)
        _exit(71);
    pthread_t t;
    pthread_create(
        &t, nullptr,
        [](void*) -> void* {
            pin_to_cpu(0);
            prctl(PR_SET_NAME, "kd-sink");
            char buf[2048];
            for (;;)
                recv(sink_fd, buf, sizeof(buf), 0);
        },
        nullptr);
    pin_to_cpu(1);
    prctl(PR_SET_NAME, "kd-flood");
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    char buf[512] = {};
    for (;;)
        sendto(fd, buf, sizeof(buf), 0, reinterpret_cast<sockaddr*>(&at), sizeof(at));
}

int main(int argc, char** argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: kd_budget spinners | sleeper | born | asleep | wake | three | rival | starved | flooded\n");
        return 64;
    }
    const std::string mode = argv[1];
    const std::vector<std::string> modes = {"spinners", "sleeper", "born", "asleep", "wake", "three", "rival", "starved", "flooded"};
    if (std::find(modes.begin(), modes.end(), mode) == modes.end()) {
        fprintf(stderr, "kd_budget: unknown mode %s\n", mode.c_str());
        return 64;
    }
    pin_to_cpu(1);
    if (pipe(g_pipe) != 0)
        return 71;
    std::vector<Worker*> workers;
    pthread_t t;
    auto start_worker = [&](const char* name, void* (*fn)(void*)) {
        auto* w = new Worker{name};
        pthread_create(&t, nullptr, fn, w);
        pthread_detach(t);
        wait_named(*w);
        workers.push_back(w);
    };
    if (mode == "spinners" || mode == "flooded") {
        if (mode == "flooded" && fork() == 0)
            flood_from_child();
        start_worker("spin-a", spinner);
        start_worker("spin-b", spinner);
    } else if (mode == "sleeper") {
        start_worker("kd-sleeper", sleeper);
    } else if (mode == "asleep") {
        start_worker("kd-asleep", reader);
    } else if (mode == "wake") {
        start_worker("kd-waiter", waiter);
        start_worker("kd-waker", waker);
    } else if (mode == "three") {
        start_worker("spin-a", spinner);
        start_worker("spin-b", spinner);
        start_worker("spin-c", spinner);
    } else if (mode == "rival" || mode == "starved") {
        const pid_t child = fork();
        if (child == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            prctl(PR_SET_NAME, mode == "rival" ? "kd-rival" : "kd-hog");
            pin_to_cpu(0);
            for (;;) {
            }
        }
        printf("rival %d\n", child);
        if (mode == "rival") {
            start_worker("kd-victim", spinner);
        } else {
            start_worker("kd-peer", spinner);
            start_worker("kd-starved", starved_spinner);
        }
    }
    printf("ready\n");
    fflush(stdout);

    for (long k = 0;; ++k) {
        const uint64_t steal_before = cpu0_steal_ns(), busy_before = cpu0_busy_ns();
        // wake: the window opens while both threads sleep. schedstat adds a
        // wait when it ends; one under way at the start would be the
        // kernel's in full and kdelay's only from the start.
        if (mode == "wake")
            wait_until_asleep(workers);
        const std::vector<Figures> start_before = read_figures(workers);
        const uint64_t start = now_ns();
        STAP_PROBE1(kdtest, window_start, k);
        const std::vector<Figures> start_after = read_figures(workers);

        Worker* born = nullptr;
        pthread_t born_thread;
        uint64_t born_at = 0, born_by = 0;
        if (mode == "spinners" || mode == "three" || mode == "rival" || mode == "starved" || mode == "flooded") {
            sleep_ms(1000);
        } else if (mode == "wake") {
            sleep_ms(300);
        } else if (mode == "sleeper") {
            futex_set(g_round, static_cast<int>(k + 1));
            for (int done; (done = g_done.load()) != k + 1;)
                futex_wait(g_done, done);
        } else if (mode == "born") {
            sleep_ms(100);
            born = new Worker{"kd-born"};
            born_at = now_ns();
            pthread_create(&born_thread, nullptr, reader, born);
            born_by = now_ns();
            sleep_ms(200);
        } else {
            sleep_ms(200);
        }

        const std::vector<Figures> end_before = read_figures(workers);
        STAP_PROBE1(kdtest, window_end, k);
        const uint64_t end = now_ns();
        const std::vector<Figures> end_after = read_figures(workers);
        printf("window %ld %lu %lu\n", k, start, end);
        printf("steal %lu\n", cpu0_steal_ns() - steal_before);
        printf("cpu0_busy %lu\n", cpu0_busy_ns() - busy_before);
        for (size_t i = 0; i < workers.size(); ++i)
            printf("thread %s %d %lu %lu %lu %lu\n", workers[i]->name.c_str(), workers[i]->tid.load(),
                   end_before[i].cpu - start_after[i].cpu, end_after[i].cpu - start_before[i].cpu,
                   end_before[i].wait - start_after[i].wait, end_after[i].wait - start_before[i].wait);
        if (born) {
            printf("born_at %lu\n", born_at);
            printf("born_by %lu\n", born_by);
            printf("thread kd-born %d 0 0 0 0\n", born->tid.load());
            char c = 'x';
            if (write(g_pipe[1], &c, 1) != 1)
                return 74;
            pthread_join(born_thread, nullptr);
            delete born;
        }
        fflush(stdout);
        sleep_ms(200);
        printf("steal_after %lu\n", cpu0_steal_ns() - steal_before);
    }
}
