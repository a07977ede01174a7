// Pins the calling thread to one CPU; silently not on a machine without it.
// Shared by the test programs and the benchmarks.
#pragma once

#include <sched.h>

inline void pin_to_cpu(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof(set), &set);
}
