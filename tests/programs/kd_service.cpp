// A service that restarts, for kdelay's always-on watch: a supervisor runs
// LIVES lives of it, each in the cgroup2 directory PARENT/NAME made anew (as
// systemd does for a unit), and plants stalls at random.
//
//   kd_service PARENT NAME LIVES LIFE_MS SEED
//   kd_service --life SEED [POLL_US]
//       One life, here, until SIGTERM: as systemd runs a unit, which makes
//       its cgroup and restarts it. POLL_US: each loop poll's timeout
//       (default 1000; 2000 gives about a busy Open vSwitch's 2,000 intervals a
//       second over the five loops).
//
// Life 0 starts at once and plants nothing. After "ready", SIGUSR1 begins
// the run: each of lives 1 to LIVES runs about LIFE_MS, then is stopped
// with SIGTERM, its cgroup removed and made again (a restart: LIVES of
// them in all), and the next one started.
//
// In a life, "kd-main" and up to four "handlerN" threads (N counts up, as
// Open vSwitch names its handlers) each loop on a ppoll() with a 1 ms
// timeout. Handlers are churned: each lives 100 to 500 ms and a new one
// takes its place. A planner picks a random thread, which plants one stall
// between two of its polls: 50 to 150 ms of its own CPU time and a sleep,
// 250 to 500 ms in all. The first stall of a life comes a few polls after
// it starts; the next ones 200 to 800 ms apart, one at a time.
//
// Output: "ready", then per stall, as it ends:
//   stall TID START_NS END_NS CPU_NS STEAL_NS  (as kd_stall prints them)
// per life "life N PID" as it starts and "polls N" as it ends (its loop
// polls, all threads: each one's return begins a loop interval), and "done"
// when the last life has ended.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <random>
#include <string>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "clocks.h"
#include "cpu_steal.h"

namespace {

constexpr int kHandlers = 4;

std::atomic<bool> g_stop{false};
volatile sig_atomic_t g_go = 0;
pthread_mutex_t g_print = PTHREAD_MUTEX_INITIALIZER;

// A loop thread's slot: the planner sets plant_ms, the thread plants it
// between two polls and clears it.
struct Slot {
    std::atomic<int> plant_ms{0};
    std::atomic<int> polls{0};
    std::atomic<bool> alive{false};
};
Slot g_slots[kHandlers + 1];  // 0: kd-main

pid_t gettid_() { return static_cast<pid_t>(syscall(SYS_gettid)); }

int g_idle[2];  // a pipe never written: what the loops wait on
std::atomic<uint64_t> g_polls{0};  // the life's loop polls, all threads
long g_poll_us = 1000;             // each loop poll's timeout

void loop_poll()
{
    pollfd idle{g_idle[0], POLLIN, 0};
    const timespec timeout{0, g_poll_us * 1000};
    ppoll(&idle, 1, &timeout, nullptr);
    ++g_polls;
}

void plant(int total_ms, int cpu_ms)
{
    const uint64_t steal0 = cpu0_steal_ns();
    const uint64_t start = now_ns(), cpu0 = cpu_ns();
    spin_cpu_ms(cpu_ms);
    const long spent = static_cast<long>((now_ns() - start) / 1000000);
    if (spent < total_ms)
        sleep_ms(total_ms - spent);
    const uint64_t end = now_ns(), cpu = cpu_ns() - cpu0;
    pthread_mutex_lock(&g_print);
    printf("stall %d %lu %lu %lu %lu\n", gettid_(), static_cast<unsigned long>(start),
           static_cast<unsigned long>(end), static_cast<unsigned long>(cpu),
           static_cast<unsigned long>(cpu0_steal_ns() - steal0));
    fflush(stdout);
    pthread_mutex_unlock(&g_print);
}

// A loop thread on slot s until stop_at (0: until the life ends).
void run_loop(Slot& s, uint64_t stop_at)
{
    s.polls = 0;
    s.alive = true;
    while (!g_stop && (!stop_at || now_ns() < stop_at || s.plant_ms)) {
        loop_poll();
        ++s.polls;
        if (const int ms = s.plant_ms.load()) {
            plant(ms, ms / 4);
            loop_poll();  // the stall ends at the loop's next wait, even as the thread ends
            s.plant_ms = 0;
        }
    }
    s.alive = false;
}

struct HandlerArgs {
    int slot;
    int number;
    uint64_t life_ns;
};

void* handler(void* p)
{
    const HandlerArgs a = *static_cast<HandlerArgs*>(p);
    delete static_cast<HandlerArgs*>(p);
    prctl(PR_SET_NAME, ("handler" + std::to_string(a.number)).c_str());
    run_loop(g_slots[a.slot], now_ns() + a.life_ns);
    return nullptr;
}

// One life of the service, in the child: it ends on SIGTERM.
void live(unsigned seed, bool planting)
{
    signal(SIGTERM, [](int) { g_stop = true; });
    prctl(PR_SET_NAME, "kd-main");
    std::mt19937 rng(seed);
    pthread_t main_loop;
    pthread_create(
        &main_loop, nullptr,
        [](void*) -> void* {
            run_loop(g_slots[0], 0);
            return nullptr;
        },
        nullptr);
    // The churn and the planner run here; the loops in their threads.
    pthread_t threads[kHandlers] = {};
    int number = 0;
    uint64_t next_stall = 0;  // the first comes a few polls in
    int planted_slot = -1;
    while (!g_stop) {
        for (int i = 0; i < kHandlers; ++i) {
            Slot& s = g_slots[i + 1];
            if (threads[i] && !s.alive && !s.plant_ms) {
                pthread_join(threads[i], nullptr);
                threads[i] = 0;
            }
            if (!threads[i]) {
                s.alive = true;  // until it starts and says otherwise
                auto* a = new HandlerArgs{i + 1, number++, (100 + rng() % 400) * 1000000ull};
                pthread_create(&threads[i], nullptr, handler, a);
            }
        }
        if (planted_slot >= 0 && !g_slots[planted_slot].plant_ms) {
            planted_slot = -1;
            next_stall = now_ns() + (200 + rng() % 600) * 1000000ull;
        }
        if (planting && planted_slot < 0 && now_ns() >= next_stall) {
            const int slot = static_cast<int>(rng() % (kHandlers + 1));
            Slot& s = g_slots[slot];
            if (s.alive && s.polls >= 3) {
                planted_slot = slot;
                s.plant_ms = static_cast<int>(250 + rng() % 250);
            }
        }
        sleep_ms(5);
    }
    for (pthread_t t : threads)
        if (t)
            pthread_join(t, nullptr);
    pthread_join(main_loop, nullptr);
    pthread_mutex_lock(&g_print);
    printf("polls %lu\n", static_cast<unsigned long>(g_polls.load()));
    fflush(stdout);
    pthread_mutex_unlock(&g_print);
}

bool write_file(const std::string& path, const std::string& text)
{
    const int fd = open(path.c_str(), O_WRONLY);
    if (fd < 0)
        return false;
    const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    close(fd);
    return ok;
}

// Returns once the life is in its cgroup: a watch started then finds it.
pid_t start_life(const std::string& cgroup, unsigned seed, bool planting)
{
    mkdir(cgroup.c_str(), 0755);
    int joined[2];
    if (pipe(joined) != 0) {
        perror("kd_service: pipe");
        exit(1);
    }
    const pid_t pid = fork();
    if (pid == 0) {
        close(joined[0]);
        if (!write_file(cgroup + "/cgroup.procs", "0")) {
            perror("kd_service: cgroup.procs");
            _exit(1);
        }
        close(joined[1]);
        live(seed, planting);
        _exit(0);
    }
    close(joined[1]);
    char c;
    while (read(joined[0], &c, 1) < 0 && errno == EINTR) {
    }
    close(joined[0]);
    return pid;
}

void end_life(pid_t pid, const std::string& cgroup)
{
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
    for (int i = 0; i < 100 && rmdir(cgroup.c_str()) != 0; ++i)
        sleep_ms(10);  // the last threads leave the cgroup after the wait
}

}  // namespace

int main(int argc, char** argv)
{
    if ((argc == 3 || argc == 4) && std::string(argv[1]) == "--life") {
        if (pipe(g_idle) != 0)
            return 1;
        if (argc == 4)
            g_poll_us = std::max(1L, std::min(999999L, atol(argv[3])));
        live(static_cast<unsigned>(atol(argv[2])), true);
        return 0;
    }
    if (argc != 6) {
        fprintf(stderr, "usage: kd_service PARENT NAME LIVES LIFE_MS SEED | --life SEED\n");
        return 2;
    }
    const std::string cgroup = std::string(argv[1]) + "/" + argv[2];
    const int lives = atoi(argv[3]);
    const long life_ms = atol(argv[4]);
    const unsigned seed = static_cast<unsigned>(atol(argv[5]));
    if (pipe(g_idle) != 0)
        return 1;
    signal(SIGUSR1, [](int) { g_go = 1; });
    signal(SIGTERM, SIG_IGN);
    pid_t life = start_life(cgroup, seed, false);
    printf("life 0 %d\nready\n", life);
    fflush(stdout);
    while (!g_go)
        pause();
    end_life(life, cgroup);
    for (int n = 1; n <= lives; ++n) {
        life = start_life(cgroup, seed + static_cast<unsigned>(n), true);
        printf("life %d %d\n", n, life);
        fflush(stdout);
        sleep_ms(life_ms);
        end_life(life, cgroup);
    }
    printf("done\n");
    fflush(stdout);
    return 0;
}
