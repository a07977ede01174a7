// The delay program loaded and attached for a target: what the sampler
// (sample_delays) and the stall watch (stall/stall_watch.h) both start
// from; app/ chooses which runs.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <sys/types.h>
#include <vector>

#include "delay/config.h"
#include "delay/program.h"
#include "loader/session.h"
#include "report/writer.h"
#include "sys/event_wait.h"
#include "sys/launcher.h"
#include "sys/pid_map.h"

namespace kdelay {

class NamespacePids;

class DelayRun {
public:
    // Resolves the triggers, finds the target, renders the program, loads
    // and attaches it, and takes over the signals. nullptr when cfg asks
    // only for --list-probes or --ebpf, which it has printed.
    static std::unique_ptr<DelayRun> start(const DelayConfig& cfg, ReportWriter& writer);
    ~DelayRun();
    DelayRun(const DelayRun&) = delete;
    DelayRun& operator=(const DelayRun&) = delete;

    BpfSession& session() { return *session_; }
    const DelayProgramParams& params() const { return params_; }
    EventWait& wait() { return *wait_; }
    // -p's processes, or the launched command (none: a cgroup).
    const std::vector<pid_t>& targets() const { return targets_; }
    // In a PID namespace of kdelay's own: the target's ids there, as learnt.
    std::function<PidMap()> ids() const;
    // Lets a command held at the door run.
    void release_command();

private:
    DelayRun() = default;
    // Members in the order they are made, so that they go in reverse.
    std::optional<Launcher> launcher_;
    std::vector<pid_t> targets_;
    std::unique_ptr<NamespacePids> namespace_pids_;
    DelayProgramParams params_;
    std::optional<BpfSession> session_;
    std::optional<EventWait> wait_;
};

// Runs the samples until they are done or the target is gone.
void sample_delays(const DelayConfig& cfg, DelayRun& run, ReportWriter& writer);

}  // namespace kdelay
