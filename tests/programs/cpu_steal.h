// CPU 0's steal time: the host ran something else while a thread of ours
// held the vCPU. With paravirt time accounting a thread's CPU clock and
// schedstat leave it out; kdelay's RUNNING cannot. Shared by the test
// programs.
#pragma once

#include <cstdint>
#include <cstdio>
#include <unistd.h>

// CPU 0's line of /proc/stat: user nice system idle iowait irq softirq
// steal, in ns at its resolution of a tick.
struct Cpu0Times {
    uint64_t v[8] = {};
    uint64_t ns(int i) const { return v[i] * (1000000000ull / static_cast<uint64_t>(sysconf(_SC_CLK_TCK))); }
};

inline Cpu0Times cpu0_times()
{
    Cpu0Times t;
    uint64_t* v = t.v;
    if (FILE* f = fopen("/proc/stat", "r")) {
        char line[512];
        while (fgets(line, sizeof(line), f))
            if (sscanf(line, "cpu0 %lu %lu %lu %lu %lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                       &v[6], &v[7]) == 8)
                break;
        fclose(f);
    }
    return t;
}

inline uint64_t cpu0_steal_ns() { return cpu0_times().ns(7); }

// Everything that ran on CPU 0, ours or not: user, nice, system, irq, softirq.
inline uint64_t cpu0_busy_ns()
{
    const Cpu0Times t = cpu0_times();
    return t.ns(0) + t.ns(1) + t.ns(2) + t.ns(5) + t.ns(6);
}
