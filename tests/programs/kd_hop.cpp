// A thread whose syscall starts on one CPU and returns on another, after a
// sample that ended inside a syscall on that other CPU: the case where a
// per-CPU in-flight slot left by an earlier sample must not be trusted.
//
//   kd_hop ROUNDS   thread "kd-hop", each round: pin to CPU 1, USDT
//                   kdtest:hop_start, sched_setaffinity to CPU 0 (entered on
//                   CPU 1, returns on CPU 0), getsid(0) on CPU 0, sleep 40 ms.
//                   Prints "ready" first and "done" at the end. Needs 2 CPUs.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/sdt.h>
#include <unistd.h>

#include "pin_cpu.h"

namespace {

long g_rounds = 0;

void* hop(void*)
{
    prctl(PR_SET_NAME, "kd-hop");
    const timespec gap{0, 40 * 1000 * 1000};
    for (long i = 0; g_rounds == 0 || i < g_rounds; ++i) {
        pin_to_cpu(1);
        STAP_PROBE1(kdtest, hop_start, i);
        pin_to_cpu(0);        // the syscall that moves the thread
        getsid(0);     // a test stops its sample here, inside this syscall
        nanosleep(&gap, nullptr);
    }
    return nullptr;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: kd_hop ROUNDS (0: forever)\n");
        return 64;
    }
    g_rounds = atol(argv[1]);
    printf("ready\n");
    fflush(stdout);
    pthread_t t;
    pthread_create(&t, nullptr, hop, nullptr);
    pthread_join(t, nullptr);
    printf("done\n");
    return 0;
}
