// What the sampling loop needs from the kernel side: capture control, the
// collected sample, and the loss counters. DelayCollector implements it on
// the BPF maps; unit tests implement it without root.
#pragma once

#include <array>
#include <vector>
#include <chrono>
#include <cstdint>

#include "delay/sample.h"

namespace kdelay {

// What the kernel side says about the current sample.
struct CaptureState {
    enum class Phase { idle, capturing, dumping, armed } phase;
    uint64_t start_trigger_ns;  // 0 when no start trigger fired
    uint64_t stop_trigger_ns;   // 0 when no stop trigger fired
};

// Updates a map could not take because it was full.
struct MapOverflow {
    const char* what;  // the map as the warning names it: "thread", "syscall", ...
    uint64_t lost;
};

class SampleSource {
public:
    virtual ~SampleSource() = default;

    virtual void start_capture() = 0;
    // Lets the start trigger begin the next sample.
    virtual void arm() = 0;
    // Freezes the maps: the kernel side stops updating them (a stop
    // trigger may have done so already).
    virtual void stop_capture() = 0;
    virtual CaptureState capture_state() = 0;

    // Whether syscall events stream in (the status line counts them).
    virtual bool has_events() const = 0;
    // Whether anything streams in, to be consumed every few milliseconds.
    virtual bool streams() const { return has_events(); }
    // For the status line: syscall events received, or else syscalls
    // measured, in this sample so far.
    virtual uint64_t progress() = 0;
    // Consumes syscall events until deadline; without events, returns at once.
    virtual void poll_events(std::chrono::steady_clock::time_point deadline) = 0;
    virtual Sample collect() = 0;
    // Clears all per-sample state; the kernel side idles.
    virtual void reset() = 0;

    // The maps that were full since the start, with the updates each lost.
    virtual std::vector<MapOverflow> map_full() = 0;
    // Block requests whose start could not be recorded (in-flight map full).
    virtual uint64_t bios_lost() = 0;
    virtual uint64_t trigger_misses() = 0;
    virtual uint64_t events_dropped() = 0;
};

}  // namespace kdelay
