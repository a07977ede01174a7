// Clocks and waits shared by the test programs: a workload measures its own
// CPU time and the kernel's schedstat, so that it holds its assumptions on a
// busy machine.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <sys/types.h>
#include <time.h>

inline uint64_t clock_ns(clockid_t clock)
{
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

inline uint64_t now_ns() { return clock_ns(CLOCK_MONOTONIC); }

// The calling thread's own CPU time.
inline uint64_t cpu_ns() { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }

inline void sleep_ms(long ms)
{
    timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr);
}

// ms of this thread's own CPU time, however long a busy machine makes it wait.
inline void spin_cpu_ms(long ms)
{
    const uint64_t end = cpu_ns() + static_cast<uint64_t>(ms) * 1000000ull;
    while (cpu_ns() < end) {
    }
}

// A thread's total wait for a CPU (schedstat's run_delay), which the kernel
// adds to as each wait ends.
inline uint64_t run_delay(pid_t tid)
{
    unsigned long run = 0, wait = 0;
    const std::string path = "/proc/self/task/" + std::to_string(tid) + "/schedstat";
    if (FILE* f = fopen(path.c_str(), "r")) {
        if (fscanf(f, "%lu %lu", &run, &wait) != 2)
            wait = 0;
        fclose(f);
    }
    return wait;
}
