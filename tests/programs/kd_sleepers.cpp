// Many threads that each call getpid() and then sleep, forever: a big target
// such as an Open vSwitch daemon with many handlers or SPDK with many reactors.
//
//   kd_sleepers N [PERIOD_MS]   N threads "kd-sleeper", each: getpid, sleep PERIOD_MS
//                               (default 200); prints "ready" when all run
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

long g_period_ms = 200;

void* sleeper(void*)
{
    prctl(PR_SET_NAME, "kd-sleeper");
    const timespec period{g_period_ms / 1000, (g_period_ms % 1000) * 1000000};
    for (;;) {
        syscall(SYS_getpid);
        nanosleep(&period, nullptr);
    }
    return nullptr;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 2 || atol(argv[1]) <= 0) {
        fprintf(stderr, "usage: kd_sleepers N [PERIOD_MS]\n");
        return 64;
    }
    const long n = atol(argv[1]);
    if (argc > 2)
        g_period_ms = atol(argv[2]);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);  // thousands of threads stay small
    for (long i = 0; i < n; ++i) {
        pthread_t t;
        if (pthread_create(&t, &attr, sleeper, nullptr) != 0) {
            perror("pthread_create");
            return 71;
        }
    }
    printf("ready\n");
    fflush(stdout);
    for (;;)
        pause();
}
