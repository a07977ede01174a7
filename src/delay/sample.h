// One sample of the kernel-delay report: what each thread spent its time on.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/log2_hist.h"

namespace kdelay {

struct Stat {
    uint64_t count = 0;
    uint64_t total_ns = 0;
    uint64_t min_ns = 0;
    uint64_t max_ns = 0;
};

struct SyscallStat {
    uint32_t nr;
    std::string name;
    Stat stat;
};

struct IrqStat {
    std::string name;  // IRQ action name, or softirq vector name
    uint32_t vector;   // softirq vector number; 0 for hard IRQs
    Stat stat;
};

struct BlockIoStat {
    std::string disk;
    char op;  // R, W, F (flush), D (discard), O (other)
    uint64_t bytes;
    Stat stat;  // start (OS queue) to completion
};

// A --histogram latency distribution of one thread.
struct HistogramSample {
    std::string kind;  // syscall, run, ready, hardirq, softirq
    std::string name;  // the syscall or softirq vector; "" for the others
    uint32_t id;       // syscall number or vector; 0 for the others
    Log2Hist hist;     // nanoseconds
};

struct ThreadSample {
    uint32_t tid = 0;
    std::string name;
    std::vector<SyscallStat> syscalls;  // by total time, descending
    std::optional<Stat> long_poll;
    std::optional<Stat> run;
    std::optional<Stat> ready;
    std::optional<Stat> stopped;
    std::vector<IrqStat> hardirqs;  // by total time, descending
    std::vector<IrqStat> softirqs;  // by total time, descending
    std::vector<BlockIoStat> blockio;  // by total time, descending
    std::vector<HistogramSample> histograms;  // with --histogram
};

// One syscall recorded by --syscall-events.
struct SyscallEvent {
    uint64_t entry_ns;  // CLOCK_MONOTONIC
    uint64_t exit_ns;
    uint32_t tid;
    std::string comm;
    uint32_t nr;
    std::string name;
    std::vector<std::string> frames;  // kernel frames, then user frames
    bool stack_lost = false;          // a stack was wanted but not recorded
};

struct Sample {
    uint32_t poll_nr = 0;  // left out of the syscall total, as poll() is waiting
    std::vector<ThreadSample> threads;  // by name, then tid
    std::vector<SyscallEvent> events;   // in arrival order
};

// Names of the softirq vectors, hi (0) to rcu (9).
const std::array<const char*, 10>& softirq_names();

}  // namespace kdelay
