// A process whose kernel-side behaviour is known, for kdelay's e2e tests.
//
//   kd_workload syscalls N M [--now]  thread "kd-counter" on CPU 1: N getppid, M nanosleep(1 ms),
//                                     exits; the main thread stays on CPU 0
//   kd_workload spin                  threads "spin-a", "spin-b" busy on CPU 0
//   kd_workload udp N [--now]         thread "kd-udp" sends itself N UDP packets over loopback
//   kd_workload poll N [--now]        thread "kd-poller": N times poll(1 ms), then 2 ms of busy work
//   kd_workload dio FILE N KIB [--now]  thread "kd-dio": N O_DIRECT writes of KIB KiB to FILE
//                                     (created and allocated before the go), then N reads
//   kd_workload irq FILE N CPU [--now]  "kd-irq-spin" busy on CPU, and "kd-dio" on the same CPU
//                                     doing N O_DIRECT writes of 4 KiB, then N reads: each
//                                     completion interrupt lands on the spinner
//   kd_workload futex N [--now]       "kd-futex-a" on CPU 0 and "kd-futex-b" on CPU 1 take N turns
//                                     each, waiting and waking with raw futex(2) calls; each
//                                     prints "calls NAME C", its exact number of futex calls
//   kd_workload threads N [--now]     N short-lived threads, one after another, each one getppid()
//   kd_workload fork N M [--now]      "kd-counter": N getppid, then forks "kd-child", which makes M
//                                     getppid and exits; "child PID" once it is gone
//   kd_workload mixed N [--now]       threads "kd-mix-a", "kd-mix-b" on CPU 0, each N times:
//                                     getppid, getppid, getuid; a sched_yield every 100th time
//   kd_workload rename                thread "kd-before" sleeps 1 ms at a time; after SIGUSR1 it
//                                     names itself "kd-after" (prctl) and prints "renamed"
//   kd_workload demo                  all of the above at once for about a second (scripts/demo.sh)
//
// Without --now the work waits for SIGUSR1, so a test can start it inside a
// sampling window. With KD_TICK=1 in the environment a thread "kd-ticker"
// sleeps 10 ms at a time from the start, so the process runs while it waits. Progress goes to stdout: "tid NAME TID", "ready", "done".
#include <arpa/inet.h>
#include <atomic>
#include <linux/futex.h>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <string>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loopback_udp.h"
#include "pin_cpu.h"

namespace {

long g_n = 0, g_m = 0;
bool g_quiet = false;  // demo: the report is the output

void announce(const char* name)
{
    prctl(PR_SET_NAME, name);
    if (g_quiet)
        return;
    printf("tid %s %ld\n", name, static_cast<long>(syscall(SYS_gettid)));
    fflush(stdout);
}

void* counter(void*)
{
    pin_to_cpu(1);  // away from the main thread, which has CPU 0
    announce("kd-counter");
    for (long i = 0; i < g_n; ++i)
        syscall(SYS_getppid);
    struct timespec ms = {0, 1000000};
    for (long i = 0; i < g_m; ++i)
        syscall(SYS_nanosleep, &ms, nullptr);  // glibc's nanosleep() is clock_nanosleep
    return nullptr;
}

// The counter, then a child process born now that makes g_m getppid calls.
void* forker(void*)
{
    announce("kd-counter");
    for (long i = 0; i < g_n; ++i)
        syscall(SYS_getppid);
    fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
        announce("kd-child");
        for (long i = 0; i < g_m; ++i)
            syscall(SYS_getppid);
        _exit(0);
    }
    waitpid(child, nullptr, 0);
    printf("child %ld\n", static_cast<long>(child));
    fflush(stdout);
    return nullptr;
}

int g_cpu = 0;  // where spinners and, in irq mode, the I/O thread run

void* spinner(void* name)
{
    pin_to_cpu(g_cpu);
    announce(static_cast<const char*>(name));
    for (;;)
        asm volatile("" ::: "memory");  // spin: a loop the compiler must keep
    return nullptr;
}

void* udp_self(void*)
{
    announce("kd-udp");
    sockaddr_in addr;
    const int fd = bind_loopback_udp(&addr);
    if (fd < 0) {
        perror("udp socket");
        exit(1);
    }
    char buf[256] = "kdelay";
    for (long i = 0; i < g_n; ++i) {
        sendto(fd, buf, sizeof(buf), 0, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
        recv(fd, buf, sizeof(buf), 0);
    }
    close(fd);
    return nullptr;
}

void* poller(void*)
{
    announce("kd-poller");
    for (long i = 0; i < g_n; ++i) {
        poll(nullptr, 0, 1);
        struct timespec start, now;
        clock_gettime(CLOCK_MONOTONIC, &start);
        do {  // vDSO: no syscall, so the gap between polls is pure work
            clock_gettime(CLOCK_MONOTONIC, &now);
        } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < 2000000L);
    }
    return nullptr;
}

int g_fd = -1;

// Creates and writes the file up front, so that inside the sampling window
// the I/O thread only overwrites allocated blocks: no allocation, no
// metadata reads, no zeroing of unwritten extents.
void prepare_direct_io(const char* path)
{
    g_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    const std::string zeros(static_cast<size_t>(g_m) * 1024, '\0');
    for (long i = 0; g_fd >= 0 && i < g_n; ++i)
        if (write(g_fd, zeros.data(), zeros.size()) != static_cast<ssize_t>(zeros.size()))
            g_fd = -1;
    if (g_fd < 0 || fsync(g_fd) != 0 || close(g_fd) != 0 || (g_fd = open(path, O_RDWR | O_DIRECT)) < 0) {
        perror(path);
        exit(1);
    }
}

void* direct_io(void*)
{
    if (g_cpu != 0)
        pin_to_cpu(g_cpu);
    announce("kd-dio");
    const size_t size = static_cast<size_t>(g_m) * 1024;
    void* buf = nullptr;
    if (posix_memalign(&buf, 4096, size) != 0)
        exit(1);
    memset(buf, 0x5a, size);
    const int fd = g_fd;
    for (long i = 0; i < g_n; ++i)
        if (pwrite(fd, buf, size, static_cast<off_t>(i * size)) != static_cast<ssize_t>(size))
            perror("pwrite"), exit(1);
    for (long i = 0; i < g_n; ++i)
        if (pread(fd, buf, size, static_cast<off_t>(i * size)) != static_cast<ssize_t>(size))
            perror("pread"), exit(1);
    close(fd);
    free(buf);
    return nullptr;
}

// Runs of one syscall and switches between them, by two threads that take
// turns on one CPU.
void* mixer(void* name)
{
    pin_to_cpu(0);
    announce(static_cast<const char*>(name));
    for (long i = 0; i < g_n; ++i) {
        syscall(SYS_getppid);
        syscall(SYS_getppid);
        syscall(SYS_getuid);
        if (i % 100 == 99)
            syscall(SYS_sched_yield);
    }
    return nullptr;
}

void* one_syscall(void*)
{
    syscall(SYS_getppid);
    return nullptr;
}

void wait_for_go(bool now)
{
    if (now)
        return;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    puts("ready");
    fflush(stdout);
    int sig;
    sigwait(&set, &sig);
}

std::atomic<int> g_turn{0};  // whose turn: 0 kd-futex-a, 1 kd-futex-b
long g_futex_calls[2];
long g_futex_tids[2];
const char* const kFutexNames[2] = {"kd-futex-a", "kd-futex-b"};

// No stdio here: two threads printing at once contend on stdout's lock,
// which is a futex of its own. main() prints the tids after the join.
void* futex_player(void* arg)
{
    const int me = static_cast<int>(reinterpret_cast<long>(arg));
    pin_to_cpu(me);
    prctl(PR_SET_NAME, kFutexNames[me]);
    g_futex_tids[me] = syscall(SYS_gettid);
    auto* word = reinterpret_cast<int*>(&g_turn);
    long calls = 0;
    for (long i = 0; i < g_n; ++i) {
        while (g_turn.load() != me) {
            syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 1 - me, nullptr, nullptr, 0);
            ++calls;
        }
        g_turn.store(1 - me);
        syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
        ++calls;
    }
    g_futex_calls[me] = calls;
    return nullptr;
}

std::atomic<bool> g_rename{false};

// Seen by kdelay under one name first, then renamed while it samples.
void* renamer(void*)
{
    prctl(PR_SET_NAME, "kd-before");
    bool renamed = false;
    for (;;) {
        if (!renamed && g_rename.load()) {
            prctl(PR_SET_NAME, "kd-after");
            renamed = true;
            puts("renamed");
            fflush(stdout);
        }
        const timespec ms{0, 1000000};
        nanosleep(&ms, nullptr);
    }
    return nullptr;
}

void* ticker(void*)
{
    announce("kd-ticker");
    struct timespec tick = {0, 10000000};
    for (;;)
        nanosleep(&tick, nullptr);
    return nullptr;
}

int usage()
{
    fprintf(stderr, "usage: kd_workload syscalls N M [--now] | spin | udp N [--now] | poll N [--now] | dio FILE N KIB [--now] | irq FILE N CPU [--now] | futex N [--now] | threads N [--now] | fork N M [--now] | mixed N [--now] | rename | demo\n");
    return 64;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 2)
        return usage();
    const std::string mode = argv[1];
    const bool now = std::string(argv[argc - 1]) == "--now";
    pthread_t t, t2;
    if (const char* tick = getenv("KD_TICK"); tick && std::string(tick) == "1") {
        sigset_t go;  // the go signal is for sigwait(), not the ticker
        sigemptyset(&go);
        sigaddset(&go, SIGUSR1);
        pthread_sigmask(SIG_BLOCK, &go, nullptr);
        pthread_t ticking;
        pthread_create(&ticking, nullptr, ticker, nullptr);
    }

    if (mode == "syscalls" && argc >= 4) {
        g_n = atol(argv[2]);
        g_m = atol(argv[3]);
        pin_to_cpu(0);
        wait_for_go(now);
        pthread_create(&t, nullptr, counter, nullptr);
        pthread_join(t, nullptr);
    } else if (mode == "fork" && argc >= 4) {
        g_n = atol(argv[2]);
        g_m = atol(argv[3]);
        wait_for_go(now);
        pthread_create(&t, nullptr, forker, nullptr);
        pthread_join(t, nullptr);
    } else if (mode == "udp" && argc >= 3) {
        g_n = atol(argv[2]);
        wait_for_go(now);
        pthread_create(&t, nullptr, udp_self, nullptr);
        pthread_join(t, nullptr);
    } else if (mode == "poll" && argc >= 3) {
        g_n = atol(argv[2]);
        wait_for_go(now);
        pthread_create(&t, nullptr, poller, nullptr);
        pthread_join(t, nullptr);
    } else if (mode == "dio" && argc >= 5) {
        g_n = atol(argv[3]);
        g_m = atol(argv[4]);
        prepare_direct_io(argv[2]);
        wait_for_go(now);
        pthread_create(&t, nullptr, direct_io, nullptr);
        pthread_join(t, nullptr);
    } else if (mode == "irq" && argc >= 5) {
        g_n = atol(argv[3]);
        g_m = 4;
        g_cpu = atoi(argv[4]);
        prepare_direct_io(argv[2]);
        pthread_create(&t2, nullptr, spinner, const_cast<char*>("kd-irq-spin"));
        wait_for_go(now);
        pin_to_cpu(g_cpu);  // inherited: kd-dio starts where the spinner is
        pthread_create(&t, nullptr, direct_io, nullptr);
        pthread_join(t, nullptr);
    } else if (mode == "futex" && argc >= 3) {
        g_n = atol(argv[2]);
        wait_for_go(now);
        pthread_create(&t, nullptr, futex_player, reinterpret_cast<void*>(0L));
        pthread_create(&t2, nullptr, futex_player, reinterpret_cast<void*>(1L));
        pthread_join(t, nullptr);
        pthread_join(t2, nullptr);
        for (int i = 0; i < 2; ++i)
            printf("tid %s %ld\ncalls %s %ld\n", kFutexNames[i], g_futex_tids[i], kFutexNames[i],
                   g_futex_calls[i]);
    } else if (mode == "threads" && argc >= 3) {
        g_n = atol(argv[2]);
        wait_for_go(now);
        for (long i = 0; i < g_n; ++i) {
            pthread_create(&t, nullptr, one_syscall, nullptr);
            pthread_join(t, nullptr);
        }
    } else if (mode == "mixed" && argc >= 3) {
        g_n = atol(argv[2]);
        wait_for_go(now);
        pthread_create(&t, nullptr, mixer, const_cast<char*>("kd-mix-a"));
        pthread_create(&t2, nullptr, mixer, const_cast<char*>("kd-mix-b"));
        pthread_join(t, nullptr);
        pthread_join(t2, nullptr);
    } else if (mode == "spin") {
        pthread_create(&t, nullptr, spinner, const_cast<char*>("spin-a"));
        pthread_create(&t2, nullptr, spinner, const_cast<char*>("spin-b"));
        puts("ready");
        fflush(stdout);
        pause();
    } else if (mode == "rename") {
        sigset_t go;  // blocked before the thread starts, so SIGUSR1 goes to sigwait()
        sigemptyset(&go);
        sigaddset(&go, SIGUSR1);
        pthread_sigmask(SIG_BLOCK, &go, nullptr);
        pthread_create(&t, nullptr, renamer, nullptr);
        wait_for_go(false);
        g_rename.store(true);
        pause();
    } else if (mode == "demo") {
        g_n = 20000;
        g_m = 50;
        g_quiet = true;
        pthread_t s1, s2;
        pthread_create(&t, nullptr, counter, nullptr);
        pthread_create(&t2, nullptr, udp_self, nullptr);
        pthread_create(&s1, nullptr, spinner, const_cast<char*>("spin-a"));
        pthread_create(&s2, nullptr, spinner, const_cast<char*>("spin-b"));
        pthread_join(t, nullptr);
        pthread_join(t2, nullptr);
        usleep(300000);
        return 0;  // the spinners end with the process
    } else {
        return usage();
    }
    puts("done");
    fflush(stdout);
    if (!now)
        pause();  // stay alive so the test decides when the target goes away
    return 0;
}
