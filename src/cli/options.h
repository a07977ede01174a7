// Command-line options, parsed but not yet validated against the system.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kdelay {

struct Options {
    enum class Mode { delay, biosnoop, record, annotate };
    Mode mode = Mode::delay;
    enum class Format { text, json };
    Format format = Format::text;
    std::optional<pid_t> pid;
    double sample_time = 0.5;       // seconds
    unsigned sample_count = 1;
    double sample_interval = 0;     // seconds
    unsigned debug = 0;             // BCC debug flags; nonzero also shows BCC's stderr
    bool print_ebpf = false;
    bool list_probes = false;
    bool histogram = false;
    bool budget = false;
    bool has_start_trigger = false;
    std::string start_trigger;
    bool has_stop_trigger = false;
    std::string stop_trigger;
    uint64_t trigger_delta = 0;     // ns
    std::optional<uint64_t> syscall_events;  // ns threshold; 0 = all
    bool skip_syscall_poll_events = false;
    bool skip_upcall_stats = false;
    uint32_t stack_trace_size = 4096;
    uint32_t buffer_page_count = 1024;

    // biosnoop (pid above also filters it)
    bool bio_queue = false;
    std::string bio_disk;
    double bio_duration = 0;

    // record (pid above is the target)
    std::vector<std::string> record_probe_files;
    std::string record_output;

    // annotate (record_probe_files above say how records annotate)
    std::string annotate_input;    // "": stdin
    std::string annotate_records;  // "": none
    bool annotate_only_listed = false;
    std::vector<std::string> command;  // after "--": start and trace this
};

// Parses argv. Returns nullopt when --help or --version was printed.
// Throws Error(Exit::usage) with one line on a bad option.
std::optional<Options> parse_options(int argc, const char* const* argv);

}  // namespace kdelay
