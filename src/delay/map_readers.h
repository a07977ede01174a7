// The delay program's maps, read into one sample: a reader per map (or per
// group of maps that make one part), each adding its part to a
// SampleReading. The kernel side keeps fast-path copies of some data (the
// per-CPU syscall runs, the RUN and READY histograms beside the thread
// slots); the readers merge them back, so the sample is whole.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include <linux/types.h>

#include "delay/budget.h"
#include "delay/program.h"
#include "delay/sample.h"
#include "delay_abi.h"
#include "sys/pid_map.h"

namespace kdelay {

class MapIo;
struct ThreadSection;

// --stall: one interval of one thread, whose map values carry its gen.
struct ThreadInterval {
    uint32_t tid;
    kd_gen_t gen;
};

// One sample being read: each reader adds its part.
struct SampleReading {
    const DelayProgramParams& params;
    const PidMap& ids;    // kernel <-> kdelay's PID namespace (empty: the same)
    BudgetWindow window;  // the sample's, for the budget
    std::map<uint32_t, ThreadSample> threads;
    std::map<uint32_t, std::string> names;
    std::map<uint32_t, uint32_t> pids;  // tid -> its process
    std::map<uint32_t, kd_budget> budgets;
    std::map<uint32_t, uint32_t> slot_tids;  // thread_slots' index -> the tid there
    std::vector<kd_recent_runs> recent;      // per CPU, read with the syscalls
    // --budget: the target's threads at the window's end, by the task
    // iterator (none: the kernel has no iterator, or it was not run).
    std::optional<std::map<uint32_t, kd_task_now>> tasks_at_end;
    Sample sample;
    // --stall: only this thread's values of this interval are read; its
    // entry comes with the stall (add_thread_entry), not from the maps.
    std::optional<ThreadInterval> interval;

    // Whether a value of thread tid written in interval gen is this reading's.
    bool wants(uint32_t tid, kd_gen_t gen) const
    {
        return !interval || (tid == interval->tid && gen == interval->gen);
    }
};

struct SampleReader {
    const char* what;
    bool (*present)(const DelayProgramParams&);  // whether the program has its maps
    void (*read)(MapIo&, SampleReading&);
};

// The core's readers, in the order they must run: threads first (names,
// budgets), histograms after every reader that adds threads, the budget
// after the IRQs (its IRQ time).
const std::vector<SampleReader>& core_readers();

// A plug-in section's rows, from its first map.
void read_section(MapIo& maps, SampleReading& r, const ThreadSection& section);

// --stall: deletes the values of exited threads (tid -> the last interval
// they had) from every map keyed by thread, so that a watch of days holds
// only live threads'. A stall of theirs must have been read before.
void forget_exited(MapIo& maps, const DelayProgramParams& params, const std::map<uint32_t, kd_gen_t>& exited);

// A thread's entry (thread_slots, threads, or a stall's copy): its name,
// process, budget state, RUN, READY and STOPPED.
void add_thread_entry(SampleReading& r, const kd_thread& t);

// How many syscalls the maps hold now: the sampler's progress line.
uint64_t syscall_count(MapIo& maps);

// The contract's kinds (delay_abi.h: KD_WAKER_*, KD_BLAME_*) as the
// report's.
WakerKind waker_kind(uint32_t kind);
HolderKind holder_kind(uint32_t kind);

// A name the kernel side wrote into a fixed char array (a comm), up to its
// first NUL or its end.
template <size_t N>
std::string bounded(const char (&s)[N])
{
    return std::string(s, strnlen(s, N));
}

}  // namespace kdelay
