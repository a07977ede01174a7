// CPU 0's steal time: the host ran something else while a thread of ours
// held the vCPU. With paravirt time accounting a thread's CPU clock and
// schedstat leave it out; kdelay's RUNNING cannot. Shared by the test
// programs.
#pragma once

#include <cstdint>
#include <cstdio>
#include <unistd.h>

// In ns, at /proc/stat's resolution of a tick.
inline uint64_t cpu0_steal_ns()
{
    uint64_t v[8] = {};
    if (FILE* f = fopen("/proc/stat", "r")) {
        char line[512];
        while (fgets(line, sizeof(line), f))
            if (sscanf(line, "cpu0 %lu %lu %lu %lu %lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                       &v[6], &v[7]) == 8)
                break;
        fclose(f);
    }
    return v[7] * (1000000000ull / static_cast<uint64_t>(sysconf(_SC_CLK_TCK)));
}
