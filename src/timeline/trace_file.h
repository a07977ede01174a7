// --timeline: a stall's trace file in the directory the user named. Names
// come from threads and processes, which any user can choose: only
// letters, digits, '.', '_' and '-' reach the file name.
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

// Writes bytes as a new file of dir named name (a number is added before
// its suffix when the name is taken), opened O_EXCL|O_NOFOLLOW with mode
// 0640; returns its path. Throws Error(Exit::cantcreat), naming option.
std::string write_trace_file(const std::string& dir, const std::string& name, const std::string& bytes,
                             const char* option = "--timeline");

}  // namespace kdelay
