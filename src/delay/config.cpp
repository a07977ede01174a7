#include "delay/config.h"

#include <unistd.h>

#include "core/error.h"
#include "sys/process.h"

namespace kdelay {

DelayConfig make_delay_config(const Options& options)
{
    DelayConfig cfg;
    cfg.command = options.command;
    cfg.sample_time = options.delay.sample_time;
    cfg.sample_count = options.delay.sample_count;
    cfg.sample_interval = options.delay.sample_interval;
    cfg.list_probes = options.delay.list_probes;
    if (options.delay.has_start_trigger)
        cfg.start_trigger = parse_trigger(options.delay.start_trigger);
    if (options.delay.has_stop_trigger)
        cfg.stop_trigger = parse_trigger(options.delay.stop_trigger);
    cfg.trigger_delta = options.delay.trigger_delta;
    DelayFeatures& f = cfg.features;
    f.syscall_events = options.delay.syscall_events;
    f.skip_syscall_poll_events = options.delay.skip_syscall_poll_events;
    f.stack_trace_size = options.delay.stack_trace_size;
    for (const FeatureSwitch* s : feature_switches())
        if (s->is_on(options.delay.switches))
            s->turn_on(f);
    f.budget |= options.format == Options::Format::json;
    f.upcall_stats = !options.delay.skip_upcall_stats;
    f.ringbuf_pages = 1;
    while (f.ringbuf_pages < options.delay.buffer_page_count)
        f.ringbuf_pages <<= 1;  // the kernel wants a power of two

    static_cast<BpfRun&>(cfg) = make_bpf_run(options, !cfg.list_probes);
    if (!cfg.command.empty() || cfg.pid)
        return cfg;
    const auto found = find_processes_with_name_containing("ovs-vswitchd");
    if (found.empty())
        throw Error(Exit::unavailable,
                    "no ovs-vswitchd process found; name a process with -p PID or run one after '--'");
    if (found.size() > 1)
        throw Error(Exit::noinput, "several ovs-vswitchd processes are running; pick one with -p PID");
    cfg.pid = found.front();
    return cfg;
}

}  // namespace kdelay
