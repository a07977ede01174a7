// What the biosnoop mode reports: a data shape the writers print.
#pragma once

#include <cstdint>
#include <string>

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

}  // namespace kdelay
