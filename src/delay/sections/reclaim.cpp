// --reclaim: [MEMORY RECLAIM STATISTICS], the time each thread spent
// reclaiming memory itself before an allocation could go on, by kind of
// reclaim (templates/sections/reclaim.bpf.c). Such stalls sit inside a
// syscall or a page fault, which they make slow for no reason the program
// can see; drsnoop and memleak's peers show them system-wide, this shows
// them on the thread they stalled.
#include "delay/section.h"

namespace kdelay {
namespace {

// The kinds, as the template numbers them (KD_RECLAIM_*).
std::string reclaim_kind(uint32_t kind)
{
    switch (kind) {
    case 0: return "direct";  // the machine is short of memory
    case 1: return "memcg";   // the thread's memory cgroup is at its limit
    case 2: return "memcg-soft";
    default: return "kind " + std::to_string(kind);
    }
}

}  // namespace

const ThreadSection& reclaim_section()
{
    static const ThreadSection section{
        {"reclaim", "--reclaim",
         "Add the time each thread spent reclaiming memory itself before an allocation could\n"
         "go on: direct reclaim (the machine is short of memory) and memory cgroup reclaim",
         "vmscan:mm_vmscan_memcg_reclaim_begin", "Linux 2.6.36, with CONFIG_MEMCG"},
        {
            {"reclaim", DelayMap::Reset::clear, "KD_MAP_RECLAIM", "memory reclaim", 2},  // (thread, kind) -> kd_stat
            {"reclaim_runs", DelayMap::Reset::clear},  // the reclaim each thread is in
        },
        "[MEMORY RECLAIM STATISTICS]",
        "kind",
        reclaim_kind,
        "KD_HIST_RECLAIM",
        "reclaim",
    };
    return section;
}

}  // namespace kdelay
