// The delay mode's options: the top level of the command line (no
// subcommand).
#pragma once

#include <cstdint>
#include <vector>

#include "cli/option_kit.h"
#include "delay/config.h"

namespace kdelay {

// What CLI11 cannot write into DelayConfig itself: the options, to tell
// which were given, and the values as given, checked in
// finish_delay_options().
struct DelayParse {
    CLI::Option* pid_opt;
    CLI::Option* debug_opt;
    CLI::Option* start_opt;
    CLI::Option* stop_opt;
    CLI::Option* trigger_delta_opt;
    CLI::Option* events_opt;
    CLI::Option* stall_opt;
    CLI::Option* duration_opt;
    CLI::Option* metrics_opt;
    CLI::Option* timeline_opt;
    CLI::Option* wait_stacks_opt;
    unsigned wait_stacks = 0;
    CLI::Option* profile_opt;
    CLI::Option* profile_folded_opt;
    unsigned profile_hz = 0;
    CLI::Option* stack_copy_opt;
    uint32_t stack_copy = kDefaultStackCopy;
    std::vector<CLI::Option*> sample_opts;  // --sample-time, --sample-count, --sample-interval
    std::string stall_text;  // --stall as given (200ms, 1s)
    std::string start_trigger, stop_trigger;
    uint32_t buffer_page_count = 1024;
    std::vector<int64_t> pids;
    std::vector<uint64_t> trigger_delta;
    std::vector<uint64_t> syscall_events;
};

void add_delay_options(CLI::App& app, CommonOptions& common, DelayConfig& delay, DelayParse& d,
                       std::vector<unsigned>& debug_flags);
// After parsing, when no subcommand was given: the values CLI11 cannot set
// directly, the checks between them (the triggers' grammar first), and
// what options imply. Throws Error with the matching exit code.
void finish_delay_options(const DelayParse& d, CommonOptions& common, DelayConfig& delay);

}  // namespace kdelay
