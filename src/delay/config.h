// The delay mode's one configuration, from option to kernel. The command
// line fills it, each value checked once as it is parsed and named as the
// user names it (delay_options.cpp); complete_delay_config() adds what only
// the system can tell (the target, root, writable outputs). The program's
// parameters and kd_config.h are derived from it in delay_mode.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "cli/bpf_config.h"
#include "cli/common_options.h"
#include "delay/features.h"
#include "trigger/trigger.h"

namespace kdelay {

struct DelayConfig {
    // From the command line.
    double sample_time = 0.5;  // seconds
    unsigned sample_count = 1;
    double sample_interval = 0;  // seconds
    bool list_probes = false;
    std::optional<Trigger> start_trigger;
    std::optional<Trigger> stop_trigger;
    uint64_t trigger_delta = 0;  // ns
    // --stall: no samples; every interval of a thread this long (ns) or
    // longer is reported as it ends, for duration seconds (0: until Ctrl-C
    // or the target's exit).
    std::optional<uint64_t> stall;
    double duration = 0;
    std::string metrics;   // --metrics FILE: Prometheus text file, rewritten as the watch goes
    std::string timeline;  // --timeline PATH: with --stall a directory of each stall's trace, else the samples' file
    std::string profile_folded;  // --profile-folded DIR: each stall's profile as folded stacks
    // --stall with --format journal: at most this many full reports a
    // minute for each thread name (0: all), the rest counted.
    unsigned stall_reports_per_minute = 0;
    std::vector<std::string> command;  // after "--": start and trace this instead of bpf.pids
    // The switches, --syscall-events, --stack-trace-size, --buffer-page-count,
    // --skip-upcall-stats, --wait-stacks, and what options imply.
    DelayFeatures features;

    // From the system (complete_delay_config). pids stays empty while a
    // command is still to be launched.
    BpfConfig bpf;
};

// What an option turns on or off besides itself. Declared beside the
// options (delay_options.cpp), said at the end of the option's --help, and
// applied as the command line is read: from this table only.
struct OptionImplication {
    const char* option;  // as the user writes it
    const char* effect;  // the end of its --help: "turns --budget on"
    bool (*given)(const DelayConfig&);
    void (*apply)(DelayFeatures&);
};
const std::vector<OptionImplication>& option_implications();

// In the journal, at most this many full stall reports a minute for each
// thread name. A storm's first reports show its shape and the rest repeat
// it: with Open vSwitch's few thread kinds that is at most a few dozen
// entries a minute, far below journald's own rate limit (10,000 a service
// in 30 s by default), so journald never drops kdelay's count of the rest.
inline constexpr unsigned kJournalStallsPerMinute = 5;

// --timeline without --wait-stacks: the stacks of each stall's five longest
// waits, the few that usually hold the answer.
inline constexpr unsigned kDefaultWaitStacks = 5;

// --stall without --profile: where each stall ran, sampled at perf's and
// BCC profile's customary rate, off the beat of 100 Hz timers.
inline constexpr unsigned kDefaultProfileHz = 99;
inline constexpr unsigned kMaxProfileHz = 1000;
// --stack-copy: perf's --call-graph dwarf default; whole 512-byte chunks.
inline constexpr uint32_t kDefaultStackCopy = 8192;
inline constexpr uint32_t kMaxStackCopy = 65536;

// Where Open vSwitch keeps its daemon's pid (its default rundir).
inline constexpr const char* kOvsPidfile = "/run/openvswitch/ovs-vswitchd.pid";

// Checks the parsed config against this system: root (unless only printing
// the eBPF source), the target process (without -p, the ovs-vswitchd that
// kOvsPidfile names, else the single one root runs), the output
// directories. Fills cfg.bpf. Throws Error with the matching exit code.
void complete_delay_config(const CommonOptions& common, DelayConfig& cfg);

}  // namespace kdelay
