// --timeline: the name of a stall's trace file (written by
// sys/output_dir.h). Names come from threads and processes, which any user
// can choose: only letters, digits, '.', '_' and '-' reach the file name.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace kdelay {

struct TraceFileName {
    std::string process;
    uint32_t pid = 0;
    std::string thread;
    uint32_t tid = 0;
    std::chrono::system_clock::time_point start;
};

// "kdelay-stall-20261128T123456.789-ovs-vswitchd-1234-handler3-1240.pftrace"
// (suffix: ".pftrace").
std::string trace_file_name(const TraceFileName& name, const char* suffix = ".pftrace");

}  // namespace kdelay
