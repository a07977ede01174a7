#include "delay/config.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "report/format.h"
#include "sys/process.h"

namespace kdelay {

namespace {

// The directory a file of path goes into ("." for a bare name).
std::string directory_of(const std::string& path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash + 1);
}

}  // namespace

DelayConfig make_delay_config(const CommonOptions& common, const DelayOptions& options)
{
    DelayConfig cfg;
    cfg.command = common.command;
    cfg.sample_time = options.sample_time;
    cfg.sample_count = options.sample_count;
    cfg.sample_interval = options.sample_interval;
    cfg.list_probes = options.list_probes;
    if (options.has_start_trigger)
        cfg.start_trigger = parse_trigger(options.start_trigger);
    if (options.has_stop_trigger)
        cfg.stop_trigger = parse_trigger(options.stop_trigger);
    cfg.trigger_delta = options.trigger_delta;
    DelayFeatures& f = cfg.features;
    f.syscall_events = options.syscall_events;
    f.skip_syscall_poll_events = options.skip_syscall_poll_events;
    f.stack_trace_size = options.stack_trace_size;
    for (const FeatureSwitch* s : feature_switches())
        if (s->is_on(options.switches))
            s->turn_on(f);
    f.upcall_stats = !options.skip_upcall_stats;
    f.ringbuf_pages = 1;
    while (f.ringbuf_pages < options.buffer_page_count)
        f.ringbuf_pages <<= 1;  // the kernel wants a power of two
    cfg.stall = options.stall;
    cfg.duration = options.duration;
    cfg.metrics_path = options.metrics_path;
    if (!cfg.metrics_path.empty()) {
        // Told now, not when the first write fails after the compile.
        const std::string dir = directory_of(cfg.metrics_path);
        if (access(dir.c_str(), W_OK) != 0)
            throw Error(Exit::cantcreat, "--metrics: cannot write into " + printable(dir) + ": " + strerror(errno));
    }
    (options.stall ? cfg.timeline_dir : cfg.timeline_file) = options.timeline_path;
    if (!options.timeline_path.empty()) {
        const std::string dir = options.stall ? options.timeline_path : directory_of(options.timeline_path);
        struct stat st {};
        if (!options.stall && stat(options.timeline_path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
            throw Error(Exit::usage, "--timeline: " + printable(options.timeline_path) +
                                         " is a directory; without --stall the samples' trace is one file");
        if (access(dir.c_str(), W_OK) != 0)
            throw Error(Exit::cantcreat, "--timeline: cannot write into " + printable(dir) + ": " + strerror(errno));
        f.timeline = true;
    }
    for (const OptionImplication& i : option_implications())
        if (i.given(options))
            i.apply(f);
    // A sample's timeline keeps the default too, though a sample opens no
    // interval to keep waits for: without that step its sched_switch took
    // the verifier from 289 k to 661 k instructions (bookworm's clang), past
    // 1 M under trixie's.
    f.wait_stacks = options.wait_stacks.value_or(f.timeline ? kDefaultWaitStacks : 0);
    if (f.wait_stacks && f.stack_trace_size == 0)
        throw Error(Exit::usage, "--wait-stacks needs stack traces; leave out --stack-trace-size 0");
    if (common.format == CommonOptions::Format::journal)
        cfg.stall_reports_per_minute = kJournalStallsPerMinute;

    const bool in_cgroup = !common.cgroup.empty() || !common.unit.empty();
    const bool several = common.pids.size() > 1 || in_cgroup;
    if (several && options.list_probes)
        throw Error(Exit::usage, "--list-probes lists one process's probes: give one PID");
    cfg.bpf = make_bpf_config(common, !cfg.list_probes);
    if (!cfg.command.empty() || !cfg.bpf.pids.empty() || cfg.bpf.cgroup)
        return cfg;
    const auto found = find_processes_with_name_containing("ovs-vswitchd");
    if (found.empty())
        throw Error(Exit::unavailable,
                    "no ovs-vswitchd process found; name a process with -p PID or run one after '--'");
    if (found.size() > 1)
        throw Error(Exit::noinput, "several ovs-vswitchd processes are running; pick one with -p PID");
    cfg.bpf.pids = {found.front()};
    return cfg;
}

}  // namespace kdelay
