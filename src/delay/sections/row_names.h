// How the plug-in sections name their rows' ids (the table of sections is
// registry.cpp; each function is in the section's own file).
#pragma once

#include <cstdint>
#include <string>

namespace kdelay {

std::string lock_kind(uint32_t flags);   // locks.cpp: lock:contention_begin's flags
std::string reclaim_kind(uint32_t kind); // reclaim.cpp: KD_RECLAIM_*

}  // namespace kdelay
