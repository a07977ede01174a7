// --reclaim: [MEMORY RECLAIM STATISTICS], the time each thread spent
// reclaiming memory itself before an allocation could go on, by kind of
// reclaim (bpf/delay/sections/reclaim.bpf.c). Such stalls sit inside a
// syscall or a page fault, which they make slow for no reason the program
// can see; drsnoop and memleak's peers show them system-wide, this shows
// them on the thread they stalled.
#include <linux/types.h>

#include "delay/section.h"
#include "delay_abi.h"

namespace kdelay {
namespace {

std::string reclaim_kind(uint32_t kind)
{
    switch (kind) {
    case KD_RECLAIM_DIRECT: return "direct";
    case KD_RECLAIM_MEMCG: return "memcg";
    case KD_RECLAIM_SOFT: return "memcg-soft";
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
        KD_CONFIG_NAMES(KD_RECLAIM_CONFIG),
    };
    return section;
}

}  // namespace kdelay
