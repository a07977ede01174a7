// Where reports go. Every mode hands its output over as the report's kinds
// (report/report.h), never as its own event types, so text and JSON print
// one model.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "report/report.h"

namespace kdelay {

// A point in a sampling run.
struct Marker {
    // watch, watch_end: --stall's start and stop (JSON: "start", "stop").
    // restart: the target's cgroup was made anew (its unit restarted), and
    // its new tasks are watched.
    enum class Kind { start, stop, dump, dump_skipped, watch, watch_end, restart } kind;
    std::chrono::system_clock::time_point when;
    std::optional<uint64_t> trigger_ns = std::nullopt;  // start/stop: the trigger's CLOCK_MONOTONIC time
    std::optional<uint64_t> delta_ns = std::nullopt;    // dump/dump_skipped: stop-start of a triggered sample
    std::optional<uint64_t> cgroup_id = std::nullopt;   // restart: the new cgroup's id
};

// Something lost while a watch goes on, told as it happens: count more of
// what (since the last such, total in all), and a sentence that says so.
struct Loss {
    std::string what;  // "stalls", "exits", "syscall map", ...
    uint64_t count = 0;
    uint64_t total = 0;
    std::string text;
};

class ReportWriter {
public:
    virtual ~ReportWriter() = default;

    virtual void marker(const Marker& marker) = 0;
    // One sample of the per-thread report.
    virtual void report(const Report& report) = 0;
    // One stall (--stall): a thread's sections over its interval.
    virtual void stall(const StallReport& stall) = 0;
    // A table whose rows arrive one at a time (biosnoop's lines): its
    // header once tracing has begun, then each row as it comes.
    virtual void rows_begin(const Table& columns) = 0;
    virtual void row(const Table& columns, const Row& row) = 0;
    // A table on its own (biosnoop's summary).
    virtual void table(const Table& table) = 0;
    // Something the user should know that is not an error.
    virtual void note(const std::string& text) = 0;
    // Data was lost or is incomplete.
    virtual void warning(const std::string& text) = 0;
    // Data lost while a watch goes on, as it happens.
    virtual void lost(const Loss& loss) = 0;
};

}  // namespace kdelay
