// The delay mode's option values, as parsed (delay_options.cpp declares them
// to CLI11; make_delay_config() checks them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "delay/features.h"

namespace kdelay {

struct DelayOptions {
    double sample_time = 0.5;  // seconds
    unsigned sample_count = 1;
    double sample_interval = 0;  // seconds
    bool list_probes = false;
    DelayFeatures switches;  // only the feature_switches() are set here
    bool has_start_trigger = false;
    std::string start_trigger;
    bool has_stop_trigger = false;
    std::string stop_trigger;
    uint64_t trigger_delta = 0;              // ns
    std::optional<uint64_t> syscall_events;  // ns threshold; 0 = all
    bool skip_syscall_poll_events = false;
    bool skip_upcall_stats = false;
    uint32_t stack_trace_size = 4096;
    uint32_t buffer_page_count = 1024;
    std::optional<uint64_t> stall;  // --stall: report each interval this long or longer
    double duration = 0;               // --duration (--stall): seconds; 0 = until Ctrl-C or exit
    std::string metrics_path;          // --metrics (--stall): Prometheus text file
    std::string timeline_path;         // --timeline: a stall's traces' directory, or the samples' trace file
    std::optional<unsigned> wait_stacks;  // --wait-stacks (--stall); default: 5 with --timeline, else 0
};

// What an option turns on or off besides itself. Declared beside the
// options (delay_options.cpp), said at the end of the option's --help, and
// applied by make_delay_config(): from this table only.
struct OptionImplication {
    const char* option;  // as the user writes it
    const char* effect;  // the end of its --help: "turns --budget on"
    bool (*given)(const DelayOptions&);
    void (*apply)(DelayFeatures&);
};
const std::vector<OptionImplication>& option_implications();

}  // namespace kdelay
