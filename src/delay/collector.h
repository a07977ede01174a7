// Reads the delay program's maps into a Sample and resets them between samples.
#pragma once

#include <array>
#include <cstdint>

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <sys/types.h>
#include <vector>

#include <linux/types.h>

#include "bpf/ring_buffer.h"
#include "delay/sample.h"
#include "delay_abi.h"

namespace kdelay {

class BpfSession;

// Index of a map in map_full counts, as in delay_abi.h.
inline constexpr std::array<const char*, 6> kDelayMapNames = {"thread", "syscall", "hard IRQ",
                                                             "soft IRQ", "block I/O", "histogram"};

// What the kernel side says about the current sample.
struct CaptureState {
    enum class Phase { idle, capturing, dumping, armed } phase;
    uint64_t start_trigger_ns;  // 0 when no start trigger fired
    uint64_t stop_trigger_ns;   // 0 when no stop trigger fired
};

class DelayCollector {
public:
    // With syscall events, pid is the process whose user stacks to symbolize.
    DelayCollector(BpfSession& session, uint32_t poll_nr, bool syscall_events, bool stack_traces,
                   bool block_io, bool histograms, pid_t pid);
    ~DelayCollector();

    void start_capture();
    // Lets the start trigger begin the next sample.
    void arm();
    // Freezes the maps: the kernel side stops updating them (a stop
    // trigger may have done so already).
    void stop_capture();
    CaptureState capture_state();

    bool has_events() const { return events_ != nullptr; }
    // For the status line: syscall events received, or else syscalls
    // measured, in this sample so far.
    uint64_t progress();
    // Consumes syscall events until deadline; without events, returns at once.
    void poll_events(std::chrono::steady_clock::time_point deadline);
    Sample collect();
    // Clears all per-sample state; the kernel side idles.
    void reset();

    // Updates lost because a map was full, per map, since the start.
    std::array<uint64_t, 6> map_full();
    // Block requests whose start could not be recorded (in-flight map full).
    uint64_t bios_lost();
    uint64_t trigger_misses();
    uint64_t events_dropped();

private:
    void set_capture(uint32_t state);
    uint64_t percpu_sum(const char* table, int index);
    // Per thread and syscall number: the syscalls hash plus the runs still
    // in the per-CPU slots.
    std::map<std::pair<uint32_t, uint32_t>, kd_stat> syscall_stats();
    template <class Slot>
    void zero_percpu_slot(const char* table);
    std::vector<SyscallEvent> resolve_events();
    BpfSession& session_;
    uint32_t poll_nr_;
    pid_t pid_;
    bool stack_traces_;
    bool block_io_;
    bool histograms_;
    std::unique_ptr<RingBufferReader> events_;
    // Chunked, so a storm never stalls the consumer on a large reallocation.
    std::deque<kd_event> pending_;
};

}  // namespace kdelay
