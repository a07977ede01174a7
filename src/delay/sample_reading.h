// What both readers of the delay program share, the sampler's
// (delay/collector.h) and the stall watch's (stall/stall_reader.h): a
// sample read from the maps, the capture switch, and the loss counters.
#pragma once

#include <cstdint>
#include <vector>

#include "delay/map_readers.h"
#include "delay/sample_source.h"

namespace kdelay {

class MapIo;

// Every section's and core reader's part, then the threads in the report's
// order (by process in the target's order, then by name and tid), shown
// in r.ids's namespace.
Sample read_sample(MapIo& maps, SampleReading& r);

// CLOCK_MONOTONIC, the clock of bpf_ktime_get_ns(), in ns.
uint64_t monotonic_ns();

// Sets the kernel side's capture state (KD_IDLE, KD_CAPTURING, ...), begun now.
void set_capture(MapIo& maps, uint32_t state);

// A counter of the contract's (KD_STAT_*), summed over the CPUs.
uint64_t stat_counter(MapIo& maps, uint32_t stat);

// The maps that were full since the start, with the updates each lost.
std::vector<MapOverflow> map_overflows(MapIo& maps, const DelayProgramParams& params);
// Block requests whose start could not be recorded (in-flight map full).
uint64_t bios_untracked(MapIo& maps, const DelayProgramParams& params);

// A thread's kept timeline events, states first, then syscalls and IRQs;
// how many of the former the kernel did not keep.
void append_timeline_events(const kd_timeline& tl, std::vector<kd_tl_event>& events, uint64_t& states_not_kept);

}  // namespace kdelay
