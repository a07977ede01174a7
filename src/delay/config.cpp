#include "delay/config.h"

#include <unistd.h>

#include "core/error.h"
#include "sys/process.h"

namespace kdelay {

DelayConfig make_delay_config(const Options& options)
{
    DelayConfig cfg;
    cfg.command = options.command;
    cfg.sample_time = options.sample_time;
    cfg.sample_count = options.sample_count;
    cfg.sample_interval = options.sample_interval;
    cfg.debug = options.debug;
    cfg.print_ebpf = options.print_ebpf;

    if (!cfg.print_ebpf && geteuid() != 0)
        throw Error(Exit::noperm, "must run as root to load and attach eBPF programs");

    if (!cfg.command.empty())
        return cfg;
    if (options.pid) {
        if (!process_exists(*options.pid))
            throw Error(Exit::unavailable, "no such process: " + std::to_string(*options.pid));
        cfg.pid = *options.pid;
        return cfg;
    }
    const auto found = find_processes_by_name("ovs-vswitchd");
    if (found.empty())
        throw Error(Exit::unavailable,
                    "no ovs-vswitchd process found; name a process with -p PID or run one after '--'");
    if (found.size() > 1)
        throw Error(Exit::noinput, "several ovs-vswitchd processes are running; pick one with -p PID");
    cfg.pid = found.front();
    return cfg;
}

}  // namespace kdelay
