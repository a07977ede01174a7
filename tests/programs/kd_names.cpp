// Threads with hostile names, for the tests of kdelay's text output: each
// name holds an escape sequence, a line break and a forged report line, or
// bytes that are not UTF-8, a C1 control and a backslash.
//
//   kd_names
//       A child process "<ESC>[31m<LF># STALLc" sleeps 100 ms at a time
//       until the parent exits (prints "child PID"). In this process:
//       - "kd<FF><C2><9B>sleep\" (CPU 0) waits in poll() on an eventfd, and
//         on each wake spins 2 ms of its own CPU time; every 20th wake it
//         spins 250 ms instead: a stall between two polls;
//       - "<ESC>[31m<LF># STALLw" (CPU 1) writes the eventfd every 20 ms:
//         the sleeper's waker;
//       - "<ESC>[31m<LF># STALLh" (CPU 0) spins all along: what the sleeper
//         waits behind for its CPU;
//       - the main thread "<ESC>[31m<LF># STALLm" sleeps 100 ms at a time.
//       Prints "ready" and runs until killed.
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "clocks.h"
#include "pin_cpu.h"

namespace {

int g_event = -1;

void name(const char* n) { prctl(PR_SET_NAME, n); }

void* sleeper(void*)
{
    name("kd\xff\xc2\x9bsleep\\");
    pin_to_cpu(0);
    for (unsigned i = 1;; ++i) {
        pollfd p{g_event, POLLIN, 0};
        poll(&p, 1, -1);
        uint64_t n;
        if (read(g_event, &n, sizeof(n)) != sizeof(n))
            _exit(71);
        spin_cpu_ms(i % 20 == 0 ? 250 : 2);
    }
}

void* waker(void*)
{
    name("\x1b[31m\n# STALLw");
    pin_to_cpu(1);
    for (;;) {
        usleep(20000);
        const uint64_t one = 1;
        if (write(g_event, &one, sizeof(one)) != sizeof(one))
            _exit(71);
    }
}

void* holder(void*)
{
    name("\x1b[31m\n# STALLh");
    pin_to_cpu(0);
    for (;;) {
    }
}

}  // namespace

int main()
{
    const pid_t child = fork();
    if (child == 0) {
        name("\x1b[31m\n# STALLc");
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        for (;;)
            usleep(100000);
    }
    name("\x1b[31m\n# STALLm");
    g_event = eventfd(0, 0);
    pthread_t t;
    pthread_create(&t, nullptr, sleeper, nullptr);
    pthread_create(&t, nullptr, waker, nullptr);
    pthread_create(&t, nullptr, holder, nullptr);
    printf("child %d\nready\n", child);
    fflush(stdout);
    for (;;)
        usleep(100000);
}
