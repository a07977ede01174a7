// The validated configuration of the kernel-delay mode.
#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

#include <optional>

#include "cli/bpf_config.h"
#include "cli/common_options.h"
#include "delay/delay_option_values.h"
#include "delay/features.h"
#include "trigger/trigger.h"

namespace kdelay {

// bpf.pids is empty while a command is still to be launched.
struct DelayConfig {
    BpfConfig bpf;  // -p (up to KD_MAX_TARGETS processes), -D, --ebpf
    std::vector<std::string> command;  // start and trace this instead of bpf.pids
    double sample_time = 0.5;
    unsigned sample_count = 1;
    double sample_interval = 0;
    bool list_probes = false;
    std::optional<Trigger> start_trigger;
    std::optional<Trigger> stop_trigger;
    uint64_t trigger_delta = 0;
    // --stall: no samples; every interval of a thread this long or longer
    // is reported as it ends, for duration seconds (0: until Ctrl-C or the
    // target's exit). Its report is the budget's, so the budget is on.
    std::optional<uint64_t> stall;
    double duration = 0;
    // --stall: at most this many full reports a minute for each thread name
    // (0: all), the rest counted; the journal's bound.
    unsigned stall_reports_per_minute = 0;
    std::string metrics_path;  // --metrics: Prometheus text file, rewritten as the watch goes
    std::string timeline_dir;   // --timeline with --stall: each stall's Perfetto trace goes there
    std::string timeline_file;  // --timeline in samples: their Perfetto trace, rewritten after each
    DelayFeatures features;
};

// In the journal, at most this many full stall reports a minute for each
// thread name. A storm's first reports show its shape and the rest repeat
// it: with Open vSwitch's few thread kinds that is at most a few dozen
// entries a minute, far below journald's own rate limit (10,000 a service
// in 30 s by default), so journald never drops kdelay's count of the rest.
inline constexpr unsigned kJournalStallsPerMinute = 5;

// --timeline without --wait-stacks: the stacks of each stall's five longest
// waits, the few that usually hold the answer.
inline constexpr unsigned kDefaultWaitStacks = 5;

// Checks the options: trigger grammar first (EX_CONFIG, before anything
// else), then against this system: root (unless only printing the eBPF
// source), the target process (found as the single ovs-vswitchd when no -p
// is given). Throws Error with the matching exit code.
DelayConfig make_delay_config(const CommonOptions& common, const DelayOptions& options);

}  // namespace kdelay
