#include "delay/config.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "sys/output_dir.h"
#include "sys/process.h"

namespace kdelay {

void complete_delay_config(const CommonOptions& common, DelayConfig& cfg)
{
    // Each directory is told now, not when the first write fails after the
    // compile: it must open, and only root (or the sticky bit) may change
    // what is in it (sys/output_dir.h). The watch opens it again, once.
    if (!cfg.metrics.empty()) {
        const std::string dir = split_path(cfg.metrics).first;
        OutputDir(dir, "--metrics");
        if (access(dir.c_str(), W_OK) != 0)
            throw Error(Exit::cantcreat, "--metrics: cannot write into " + dir + ": " + strerror(errno));
    }
    if (!cfg.timeline.empty()) {
        const std::string dir = cfg.stall ? cfg.timeline : split_path(cfg.timeline).first;
        struct stat st {};
        if (!cfg.stall && stat(cfg.timeline.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
            throw Error(Exit::usage, "--timeline: " + cfg.timeline +
                                         " is a directory; without --stall the samples' trace is one file");
        OutputDir(dir, "--timeline");
        if (access(dir.c_str(), W_OK) != 0)
            throw Error(Exit::cantcreat, "--timeline: cannot write into " + dir + ": " + strerror(errno));
    }
    if (!cfg.profile_folded.empty()) {
        OutputDir(cfg.profile_folded, "--profile-folded");
        if (access(cfg.profile_folded.c_str(), W_OK) != 0)
            throw Error(Exit::cantcreat,
                        "--profile-folded: cannot write into " + cfg.profile_folded + ": " + strerror(errno));
    }

    const bool in_cgroup = !common.cgroup.empty() || !common.unit.empty();
    const bool several = common.pids.size() > 1 || in_cgroup;
    if (several && cfg.list_probes)
        throw Error(Exit::usage, "--list-probes lists one process's probes: give one PID");
    // --list-probes too: it reads the target's maps and files as root would.
    cfg.bpf = make_bpf_config(common, true);
    if (!cfg.command.empty() || !cfg.bpf.pids.empty() || cfg.bpf.cgroup)
        return;
    // As kernel_delay.py's users mean it, but never another user's process:
    // Open vSwitch's own pidfile, else the one ovs-vswitchd that root runs.
    if (const auto pid = pid_from_pidfile(kOvsPidfile, "ovs-vswitchd")) {
        cfg.bpf.pids = {*pid};
        return;
    }
    const NamedProcesses found = processes_named("ovs-vswitchd");
    if (found.roots.empty())
        throw Error(Exit::unavailable,
                    std::string("no ovs-vswitchd process found") +
                        (found.others ? " (only other users' ones, which are never chosen)" : "") +
                        "; name a process with -p PID or run one after '--'");
    if (found.roots.size() > 1)
        throw Error(Exit::noinput, "several ovs-vswitchd processes are running; pick one with -p PID");
    cfg.bpf.pids = {found.roots.front()};
}

}  // namespace kdelay
