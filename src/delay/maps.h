// The delay program's maps that hold one sample, when each exists, and how it
// is emptied between samples: one table, so a new section adds its maps here,
// and reset() and collect() follow it (collect() in the table's order, with
// each map's reader from DelayCollector::readers()).
#pragma once

#include <array>

#include "delay/program.h"

namespace kdelay {

struct DelayMap {
    enum class Reset {
        clear,  // a hash: delete every entry
        zero,   // an array: zero every element
    };
    const char* name;
    Reset reset;
    bool (*present)(const DelayProgramParams&);
};

namespace delay_maps {
inline bool always(const DelayProgramParams&) { return true; }
inline bool stack_traces(const DelayProgramParams& p) { return p.features.stack_traces(); }
inline bool histograms(const DelayProgramParams& p) { return p.features.histograms; }
inline bool budget(const DelayProgramParams& p) { return p.features.budget; }
inline bool block_io(const DelayProgramParams& p) { return p.block.has_value(); }
inline bool upcalls(const DelayProgramParams& p) { return p.upcalls != UpcallPlan::Probe::none; }
}  // namespace delay_maps

inline constexpr std::array<DelayMap, 15> kSampleMaps = {{
    {"threads", DelayMap::Reset::clear, delay_maps::always},
    {"syscalls", DelayMap::Reset::clear, delay_maps::always},
    {"hardirqs", DelayMap::Reset::clear, delay_maps::always},
    {"softirqs", DelayMap::Reset::clear, delay_maps::always},
    {"hardirq_slot", DelayMap::Reset::zero, delay_maps::always},
    {"softirq_slot", DelayMap::Reset::zero, delay_maps::always},
    {"recent", DelayMap::Reset::zero, delay_maps::always},  // per-CPU syscall runs
    {"stack_traces", DelayMap::Reset::clear, delay_maps::stack_traces},
    {"blockio", DelayMap::Reset::clear, delay_maps::always},  // declared even without block I/O
    {"hist", DelayMap::Reset::clear, delay_maps::histograms},
    {"wakers", DelayMap::Reset::clear, delay_maps::budget},
    {"blame", DelayMap::Reset::clear, delay_maps::budget},
    {"waiting", DelayMap::Reset::zero, delay_maps::budget},  // threads left waiting when the window closed
    {"bio_start", DelayMap::Reset::clear, delay_maps::block_io},
    {"upcalls", DelayMap::Reset::clear, delay_maps::upcalls},
}};

}  // namespace kdelay
