// Where reports go. Every mode talks to this interface, so text and other
// formats share one path.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include <vector>

#include "report/bio_event.h"
#include "report/sample.h"

namespace kdelay {

// A point in a sampling run.
struct Marker {
    enum class Kind { start, stop, dump, dump_skipped } kind;
    std::chrono::system_clock::time_point when;
    std::optional<uint64_t> trigger_ns;  // start/stop: the trigger's CLOCK_MONOTONIC time
    std::optional<uint64_t> delta_ns;    // dump/dump_skipped: stop-start of a triggered sample
};

class ReportWriter {
public:
    virtual ~ReportWriter() = default;

    virtual void marker(const Marker& marker) = 0;
    virtual void sample(const Sample& sample) = 0;
    // biosnoop: the column header (QUE(ms) only with queue), then one line per I/O.
    virtual void bio_header(bool queue) = 0;
    virtual void bio_event(const BioEvent& event, bool queue) = 0;
    virtual void bio_summary(const std::vector<BioSummaryRow>& rows) = 0;
    // Something the user should know that is not an error.
    virtual void note(const std::string& text) = 0;
    // Data was lost or is incomplete.
    virtual void warning(const std::string& text) = 0;
};

}  // namespace kdelay
