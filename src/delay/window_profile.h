// --profile in a sample (no --stall): each thread's CPU-clock samples over
// the window. The kernel side sends a sample with its stack copy, unwound
// here as it comes, while the process's files are mapped as they were;
// a sample without a copy it counts itself, by thread and pair of stacks
// (window_profile).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "delay/program.h"
#include "profile/process_stacks.h"
#include "profile/profile.h"
#include "report/time_budget.h"
#include "sys/pid_map.h"

namespace kdelay {

class MapIo;

class WindowProfile {
public:
    // ids: as DelayCollector's.
    WindowProfile(MapIo& maps, const DelayProgramParams& params, std::function<PidMap()> ids);

    // Reads the maps of the processes of the kernel's tgids now, while
    // they run: a sample's stacks are named when it ends.
    void load(const std::vector<uint32_t>& tgids);
    // One record of the stack_copies ring.
    void add_copy(const void* data, size_t size);
    // Names the user stacks the kernel counted since the last call, while
    // their processes run (at most once a second, but when final).
    void name_counted_stacks(bool final = false);
    // The window's profile of each thread, by the kernel's tid; read before
    // the maps are emptied (its stacks are in stack_traces).
    std::map<uint32_t, TimeBudget::Profile> take();
    // A window not reported (a sample that ended before it began).
    void clear()
    {
        threads_.clear();
        named_.clear();
    }

private:
    const PidMap& ids_for(uint32_t tgid);
    struct Thread {
        uint32_t tgid = 0;
        StackTallies tallies;
    };
    MapIo& maps_;
    const unsigned hz_;
    std::function<PidMap()> ids_fn_;
    PidMap ids_;
    std::chrono::steady_clock::time_point next_ids_{};
    ProcessStacks stacks_;
    std::map<uint32_t, Thread> threads_;  // by the kernel's tid
    std::set<std::pair<uint32_t, int>> named_;  // counted user stacks named, by tgid
    std::chrono::steady_clock::time_point next_naming_{};
};

}  // namespace kdelay
