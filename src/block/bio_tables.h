// What the biosnoop mode reports, and the tables the writers print it as.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "report/table.h"

namespace kdelay {

struct BioEvent {
    double time_s;  // since the first I/O
    std::string comm;
    uint32_t pid;
    std::string disk;
    char op;  // R, W, F (flush), D (discard), O (other)
    uint64_t sector;
    uint32_t bytes;
    uint64_t queue_ns;   // OS queue: start to issue
    uint64_t device_ns;  // device: issue to completion
};

struct BioSummaryRow {
    std::string disk;
    char op;
    uint64_t count = 0;
    uint64_t bytes = 0;
    uint64_t total_device_ns = 0;
    uint64_t max_device_ns = 0;
};

// One line per I/O in BCC biosnoop's layout (QUE(ms) only with queue);
// JSON: {"type": "bio", ...}.
Table bio_columns(bool queue);
Row bio_row(const BioEvent& event);

// The summary per disk and operation; JSON: {"type": "bio_summary", "rows": [...]}.
Table bio_summary_table(const std::vector<BioSummaryRow>& rows);

}  // namespace kdelay
