#include "loader/pid_namespace.h"

#include <map>
#include <sys/stat.h>
#include <thread>

#include "loader/btf_offsets.h"
#include "loader/program_source.h"
#include "loader/session.h"
#include "core/error.h"
#include "pidns_abi.h"
#include "sys/process.h"

namespace kdelay {

namespace {
const char* const kOwnNamespace = "/proc/self/ns/pid";
}

NamespacePids::NamespacePids(const std::vector<pid_t>& local, unsigned debug,
                             const std::optional<CgroupMatch>& cgroup)
    : local_(local)
{
    struct stat ns {};
    if (stat(kOwnNamespace, &ns) != 0)
        throw Error(Exit::osfile, std::string("cannot read ") + kOwnNamespace);
    ConfigHeader c(pidns_config_names());
    add_targets(c, local, cgroup);
    c.number("NS_DEV", ns.st_dev);
    c.number("NS_INO", ns.st_ino);
    const KernelBtf btf;
    const std::optional<PidNsLayout> l = read_pidns_layout(btf);
    c.flag("TASK_ITERATOR", l.has_value());
    c.offsets(pidns_offsets(), l.value_or(PidNsLayout{}));
    c.number("TASK_PID_OFF", read_kernel_layout(btf).task_pid.offset);
    c.number("UPID_SIZE", l ? l->upid_size : 0);
    c.number("PIDNS_INUM_OFF", l ? l->pidns_inum : 0);
    session_ = std::make_unique<BpfSession>(assemble_program({"pidns.bpf.c"}, c), debug);
    session_->attach(load_probe_set("pidns"));
    iterator_ = l.has_value();
}

std::unique_ptr<NamespacePids> NamespacePids::when_needed(const std::vector<pid_t>& local, unsigned debug,
                                                         const std::optional<CgroupMatch>& cgroup)
{
    if ((local.empty() && !cgroup) || in_kernels_pid_namespace())
        return nullptr;
    return std::make_unique<NamespacePids>(local, debug, cgroup);
}

NamespacePids::~NamespacePids() = default;

PidMap NamespacePids::ids()
{
    if (iterator_)
        session_->run_iterator("bpf_iter__task");  // idle threads too
    PidMap map;
    for (const auto& [kernel_tid, t] : session_->maps().entries<uint32_t, kd_ns_thread>("ns_threads")) {
        map.add(kernel_tid, t.tid);
        map.add(t.kernel_tgid, t.tgid);
    }
    return map;
}

std::vector<pid_t> NamespacePids::kernel_tgids(std::chrono::milliseconds wait)
{
    // Every task of the namespace at once, idle ones too; then, for what
    // the iterator could not read, the threads as they run.
    if (iterator_)
        session_->run_iterator("bpf_iter__task");
    const auto until = std::chrono::steady_clock::now() + wait;
    for (;;) {
        std::map<pid_t, pid_t> seen;  // local process -> the kernel's
        for (const auto& [kernel_tid, t] : session_->maps().entries<uint32_t, kd_ns_thread>("ns_threads"))
            seen[static_cast<pid_t>(t.tgid)] = static_cast<pid_t>(t.kernel_tgid);
        std::vector<pid_t> kernel;
        for (pid_t pid : local_) {
            const auto k = seen.find(pid);
            if (k == seen.end())
                break;
            kernel.push_back(k->second);
        }
        if (kernel.size() == local_.size())
            return kernel;
        if (std::chrono::steady_clock::now() >= until)
            throw Error(Exit::unavailable,
                        "no thread of process " + std::to_string(local_[kernel.size()]) + " ran within " +
                            std::to_string(wait.count() / 1000) +
                            " s, so its PID in the kernel's view (the one eBPF sees) is not known: kdelay runs "
                            "in a PID namespace of its own");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

}  // namespace kdelay
