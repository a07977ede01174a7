// getppid_storm SECONDS: one thread calls getppid() as fast as it can and
// prints "getppid_per_sec N".
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char** argv)
{
    const double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const auto end = start + std::chrono::duration<double>(seconds);
    unsigned long calls = 0;
    while (Clock::now() < end) {
        for (int i = 0; i < 1000; ++i)
            syscall(SYS_getppid);
        calls += 1000;
    }
    const double took = std::chrono::duration<double>(Clock::now() - start).count();
    printf("getppid_per_sec %.0f\n", calls / took);
    return 0;
}
