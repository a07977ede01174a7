// A report kind: log2 latency histograms, as BCC's tools print them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/log2_hist.h"

namespace kdelay {

// One thread's distribution of one kind of wait or call (--histogram).
struct LatencyHistogram {
    std::string kind;  // syscall, run, ready, hardirq, softirq, blocked, a section's
    std::string name;  // the syscall, vector or row; "" for the others
    uint32_t id = 0;   // the syscall number, vector or row id; 0 for the others
    bool id_named = false;  // text: "futex (202)": the id means something to the reader
    Log2Hist hist;          // nanoseconds
};

// BCC's print_log2_hist layout: a header, then one line per slot from the
// first to the last non-empty one, with a 40-character bar.
std::vector<std::string> render_log2_hist(const Log2Hist& hist, const std::string& unit);

}  // namespace kdelay
