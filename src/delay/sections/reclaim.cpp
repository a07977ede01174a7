// --reclaim: [MEMORY RECLAIM STATISTICS], the time each thread spent
// reclaiming memory itself before an allocation could go on, by kind of
// reclaim (bpf/delay/sections/reclaim.bpf.c). Such stalls sit inside a
// syscall or a page fault, which they make slow for no reason the program
// can see; drsnoop and memleak's peers show them system-wide, this shows
// them on the thread they stalled. Here: its rows' names; its ThreadSection
// is a row of registry.cpp.
#include <linux/types.h>

#include "delay/sections/row_names.h"
#include "delay_abi.h"

namespace kdelay {

std::string reclaim_kind(uint32_t kind)
{
    switch (kind) {
    case KD_RECLAIM_DIRECT: return "direct";
    case KD_RECLAIM_MEMCG: return "memcg";
    case KD_RECLAIM_SOFT: return "memcg-soft";
    default: return "kind " + std::to_string(kind);
    }
}

}  // namespace kdelay
