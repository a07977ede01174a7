// The delay program's maps that hold one sample, when each exists, and how it
// is emptied between samples, and which map-full counter warns for it: one
// table for the core's sections, to which sample_maps() adds the plug-in
// sections' maps (delay/section.h); reset() and the map-full warnings
// follow it. What reads each map into the sample is delay/map_readers.
#pragma once

#include <array>
#include <vector>
#include <linux/types.h>

#include "delay/program.h"
#include "delay_abi.h"

namespace kdelay {

struct DelayMap {
    enum class Reset {
        clear,  // a hash: delete every entry
        zero,   // an array: zero every element
    };
    const char* name;
    Reset reset;
    bool (*present)(const DelayProgramParams&);  // null: the section's switch says
    int full = -1;             // its map-full counter (KD_MAP_*), if it can fill up
    const char* what = "";     // how the map-full warning names it
    const char* section = nullptr;  // the plug-in section it belongs to

    bool exists(const DelayProgramParams& p) const
    {
        return present ? present(p) : p.features.sections.count(section) > 0;
    }
};

namespace delay_maps {
inline bool always(const DelayProgramParams&) { return true; }
inline bool stack_traces(const DelayProgramParams& p) { return p.features.stack_traces(); }
inline bool histograms(const DelayProgramParams& p) { return p.features.histograms; }
inline bool budget(const DelayProgramParams& p) { return p.features.budget; }
inline bool block_io(const DelayProgramParams& p) { return p.block.has_value(); }
inline bool upcalls(const DelayProgramParams& p) { return p.upcalls != UpcallPlan::Probe::none; }
inline bool timeline(const DelayProgramParams& p) { return p.features.timeline; }
inline bool wait_stacks(const DelayProgramParams& p) { return p.features.wait_stacks > 0; }
inline bool stall_profile(const DelayProgramParams& p) { return p.features.profile_hz > 0 && p.stall; }
inline bool window_profile(const DelayProgramParams& p) { return p.features.profile_hz > 0 && !p.stall; }
}  // namespace delay_maps

inline constexpr std::array<DelayMap, 22> kCoreMaps = {{
    {"thread_slots", DelayMap::Reset::zero, delay_maps::always},
    {"threads", DelayMap::Reset::clear, delay_maps::always, KD_MAP_THREADS, "thread"},
    {"syscalls", DelayMap::Reset::clear, delay_maps::always, KD_MAP_SYSCALLS, "syscall"},
    {"hardirqs", DelayMap::Reset::clear, delay_maps::always, KD_MAP_HARDIRQS, "hard IRQ"},
    {"softirqs", DelayMap::Reset::clear, delay_maps::always, KD_MAP_SOFTIRQS, "soft IRQ"},
    {"hardirq_slot", DelayMap::Reset::zero, delay_maps::always},
    {"softirq_slot", DelayMap::Reset::zero, delay_maps::always},
    {"recent", DelayMap::Reset::zero, delay_maps::always},  // per-CPU syscall runs
    {"recent_hists", DelayMap::Reset::zero, delay_maps::histograms},  // their histograms, read with hist
    {"stack_traces", DelayMap::Reset::clear, delay_maps::stack_traces},
    {"blockio", DelayMap::Reset::clear, delay_maps::block_io, KD_MAP_BLOCKIO, "block I/O"},
    {"hist", DelayMap::Reset::clear, delay_maps::histograms, KD_MAP_HIST, "histogram"},
    {"thread_hists", DelayMap::Reset::zero, delay_maps::histograms},  // read with hist
    {"wakers", DelayMap::Reset::clear, delay_maps::budget, KD_MAP_WAKERS, "waker"},
    {"blame", DelayMap::Reset::clear, delay_maps::budget, KD_MAP_BLAME, "READY blame"},
    {"waiting", DelayMap::Reset::zero, delay_maps::budget},  // threads left waiting when the window closed
    {"bio_start", DelayMap::Reset::clear, delay_maps::block_io},
    {"upcalls", DelayMap::Reset::clear, delay_maps::upcalls, KD_MAP_UPCALLS, "upcall"},
    {"timelines", DelayMap::Reset::clear, delay_maps::timeline, KD_MAP_TIMELINES, "timeline"},
    {"wait_stacks", DelayMap::Reset::clear, delay_maps::wait_stacks, KD_MAP_WAIT_STACKS, "wait stacks"},
    {"profiles", DelayMap::Reset::clear, delay_maps::stall_profile, KD_MAP_PROFILES, "profile"},
    {"window_profile", DelayMap::Reset::clear, delay_maps::window_profile, KD_MAP_WINDOW_PROFILE, "profile"},
}};

// kCoreMaps, then every plug-in section's maps.
const std::vector<DelayMap>& sample_maps();

}  // namespace kdelay
