// The target's ids in the kernel's view, for a kdelay that runs in a PID
// namespace of its own (a container without the host's PIDs), where the
// PIDs it is given and reads in /proc are not the ones eBPF sees.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <sys/types.h>
#include <vector>

#include "loader/program_source.h"
#include "sys/pid_map.h"

namespace kdelay {

class BpfSession;

// A probe on every context switch that keeps, for each thread of the local
// processes that runs while it lives, the kernel's ids (bpf/pidns.bpf.c).
class NamespacePids {
public:
    // Compiles, loads and attaches the probe, for the local processes or
    // every task of cgroup (then local is empty, and kernel_tgids() is not
    // for it). Throws as BpfSession does.
    NamespacePids(const std::vector<pid_t>& local, unsigned debug,
                  const std::optional<CgroupMatch>& cgroup = std::nullopt);
    // The probe where kdelay runs in a PID namespace of its own and has
    // processes or a cgroup to name; null in the kernel's namespace, where
    // its ids are the kernel's.
    static std::unique_ptr<NamespacePids> when_needed(const std::vector<pid_t>& local, unsigned debug,
                                                      const std::optional<CgroupMatch>& cgroup);
    ~NamespacePids();
    NamespacePids(const NamespacePids&) = delete;
    NamespacePids& operator=(const NamespacePids&) = delete;

    // How long a local process may take to run (the docs say 3 s).
    static constexpr std::chrono::milliseconds kRunWithin{3000};
    // The kernel's id of each local process, in order, once a thread of
    // each has run. Throws Error(Exit::unavailable) naming a process none of
    // whose threads ran within wait: its kernel id cannot be known.
    std::vector<pid_t> kernel_tgids(std::chrono::milliseconds wait = kRunWithin);
    // Every thread seen so far.
    PidMap ids();
    // ids(), for a reader that asks again as threads come (this must
    // outlive it).
    std::function<PidMap()> learner()
    {
        return [this] { return ids(); };
    }

private:
    std::vector<pid_t> local_;
    std::unique_ptr<BpfSession> session_;
    bool iterator_ = false;  // the program has bpf_iter__task
};

}  // namespace kdelay
