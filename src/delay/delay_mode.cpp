#include "delay/delay_mode.h"

#include <algorithm>
#include <bpf/libbpf.h>
#include <iostream>
#include <optional>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include "block/block_program.h"
#include "bpf/btf_offsets.h"
#include "bpf/kernel_features.h"
#include "bpf/pid_namespace.h"
#include "bpf/probe_set.h"
#include "bpf/session.h"
#include "core/error.h"
#include "delay/collector.h"
#include "delay/program.h"
#include "delay/sampler.h"
#include "delay/stall_watch.h"
#include "delay/upcalls.h"
#include "sys/cgroup.h"
#include "sys/event_wait.h"
#include "sys/launcher.h"
#include "sys/process.h"
#include "sys/syscall_names.h"
#include "sys/tracefs.h"
#include "trigger/resolve.h"

namespace kdelay {
namespace {

uint32_t poll_syscall_number()
{
    auto nr = syscall_number("poll");
    // Architectures without poll() (arm64) only have ppoll.
    return nr ? *nr : syscall_number("ppoll").value_or(UINT32_MAX);
}

// The poll family on this architecture: the syscalls whose return begins a
// --stall interval and whose call ends it, as Open vSwitch times them.
std::vector<uint32_t> poll_family_numbers()
{
    std::vector<uint32_t> nrs;
    for (const char* name : {"poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait", "epoll_pwait2"})
        if (const auto nr = syscall_number(name))
            nrs.push_back(*nr);
    return nrs;
}

// The executable of process pid, or of the command to start (pid 0): what
// a trigger without an object refers to.
std::string target_executable(const DelayConfig& cfg, pid_t pid)
{
    if (!cfg.command.empty())
        return find_in_path(cfg.command[0]);
    return process_executable(pid);
}

// A trigger resolved where it attaches: a USDT probe or uprobe in each of
// the target's processes (pid 0: the command to start; -1: every process
// running the object, for a cgroup's), anything else once.
using TriggerSites = std::vector<std::pair<pid_t, ResolvedTrigger>>;

// A cgroup's processes come and go: the trigger is attached to each object
// its processes hold it in, for every process, and the program lets only
// the target's fire it. Processes without it are passed over.
TriggerSites resolve_in_cgroup(const DelayConfig& cfg, const Trigger& trigger)
{
    TriggerSites sites;
    std::set<std::pair<dev_t, ino_t>> objects;
    std::optional<Error> first;
    for (pid_t pid : cgroup_processes(cfg.bpf.cgroup->path)) {
        try {
            ResolvedTrigger r = resolve_trigger(trigger, pid, target_executable(cfg, pid));
            struct stat st {};
            if (stat(r.binary.c_str(), &st) == 0 && !objects.insert({st.st_dev, st.st_ino}).second)
                continue;  // the same file, seen through another process
            sites.emplace_back(-1, std::move(r));
        } catch (const Error& e) {
            if (!first)
                first = e;
        }
    }
    if (sites.empty())
        throw Error(first ? first->code() : Exit::noinput,
                    "no process in " + cfg.bpf.cgroup->path + " has " + trigger.describe() +
                        (first ? std::string(" (") + first->what() + ")" : std::string()));
    return sites;
}

TriggerSites resolve_sites(const DelayConfig& cfg, const Trigger& trigger)
{
    if (trigger.in_processes() && cfg.bpf.cgroup)
        return resolve_in_cgroup(cfg, trigger);
    std::vector<pid_t> pids = cfg.command.empty() ? cfg.bpf.pids : std::vector<pid_t>{0};
    if (pids.empty() || !trigger.in_processes())
        pids.resize(1);  // a tracepoint or kprobe needs no process
    TriggerSites sites;
    for (pid_t pid : pids)
        sites.emplace_back(pid, resolve_trigger(trigger, pid, target_executable(cfg, pid)));
    return sites;
}

int list_probes(const DelayConfig& cfg)
{
    const auto probes = list_usdt_probes(cfg.command.empty() ? cfg.bpf.pid() : 0, target_executable(cfg, cfg.bpf.pid()));
    for (const auto& p : probes)
        std::cout << p.provider << ":" << p.name << " " << p.binary << "\n";
    if (probes.empty())
        std::cerr << "kdelay: no USDT probes found" << std::endl;
    return 0;
}

// Attaches a resolved trigger to function in the program.
void attach_trigger(BpfSession& session, const ResolvedTrigger& r, const char* function, pid_t pid)
{
    const Trigger& t = r.trigger;
    switch (t.kind) {
    case Trigger::Kind::usdt:
        for (const UsdtSite& site : r.sites)
            session.attach_usdt_site(site.binary, site.address, site.semaphore_offset, function, pid);
        break;
    case Trigger::Kind::tracepoint:
        session.attach_tracepoint(t.system + ":" + t.event, function);
        break;
    case Trigger::Kind::kprobe:
    case Trigger::Kind::kretprobe:
        session.attach_kprobe(t.function, function, t.kind == Trigger::Kind::kretprobe);
        break;
    case Trigger::Kind::uprobe:
    case Trigger::Kind::uretprobe:
        session.attach_uprobe(r.binary, t.function, function, t.kind == Trigger::Kind::uretprobe, pid);
        break;
    }
}

}  // namespace

int run_delay(const DelayConfig& cfg, ReportWriter& writer)
{
    if (cfg.list_probes)
        return list_probes(cfg);

    // Triggers are checked against the target before anything is compiled.
    TriggerSites start, stop;
    if (!cfg.bpf.print_ebpf) {
        if (cfg.start_trigger)
            start = resolve_sites(cfg, *cfg.start_trigger);
        if (cfg.stop_trigger)
            stop = resolve_sites(cfg, *cfg.stop_trigger);
        for (const FeatureSwitch* s : feature_switches())
            if (s->is_on(cfg.features) && s->needs_tracepoint && !tracepoint_exists(s->needs_tracepoint))
                throw Error(Exit::unavailable, std::string(s->flag) + ": this kernel has no " + s->needs_tracepoint +
                                                   " tracepoint (it came in " + s->since + ")");
    }

    // The target: -p's processes, or the command, held at the door until
    // the first sample starts.
    std::optional<Launcher> launcher;
    if (!cfg.command.empty() && !cfg.bpf.print_ebpf)
        launcher.emplace(cfg.command);
    const std::vector<pid_t> targets = launcher ? std::vector<pid_t>{launcher->pid()} : cfg.bpf.pids;
    const pid_t target = targets.empty() ? 0 : targets.front();  // the command, for its triggers
    size_t threads = cfg.bpf.cgroup ? cgroup_thread_count(cfg.bpf.cgroup->path) : 0;
    for (pid_t pid : targets)
        threads += thread_count(pid);

    // In a PID namespace of kdelay's own, -p's PIDs and the command's are
    // that namespace's: the program compares the kernel's, learnt as the
    // target runs. A cgroup is matched by its id, and its tasks' ids are
    // learnt for the report.
    KernelBtf btf;
    const std::optional<CgroupMatch> cgroup = match_cgroup(cfg.bpf.cgroup, btf);
    std::unique_ptr<NamespacePids> namespace_pids =
        cfg.bpf.print_ebpf ? nullptr : NamespacePids::when_needed(targets, cfg.bpf.debug, cgroup);
    std::vector<pid_t> kernel_targets = targets;
    if (namespace_pids) {
        if (launcher)
            launcher->wake();  // held at the door, it must run once to be seen
        if (!targets.empty())
            kernel_targets = namespace_pids->kernel_tgids();
    }

    const uint32_t poll_nr = poll_syscall_number();
    DelayProgramParams params;
    params.tgids = kernel_targets;
    params.cgroup = cgroup;
    params.poll_nr = poll_nr;
    params.sizes = size_delay_maps(std::max<size_t>(threads, 1));
    params.layout = read_kernel_layout(btf);
    params.start_trigger = cfg.start_trigger.has_value();
    params.stop_trigger = cfg.stop_trigger.has_value();
    params.start_trigger_target_only = cfg.bpf.cgroup && cfg.start_trigger && cfg.start_trigger->in_processes();
    params.stop_trigger_target_only = cfg.bpf.cgroup && cfg.stop_trigger && cfg.stop_trigger->in_processes();
    params.features = cfg.features;
    params.block = read_block_layout(btf);
    params.compare_and_swap = bpf_has_compare_and_swap();
    params.cpus = static_cast<uint32_t>(std::max(1, libbpf_num_possible_cpus()));
    const UpcallPlan upcalls = plan_upcalls(cfg.features.upcall_stats);
    params.upcalls = upcalls.probe;
    params.stall = cfg.stall;
    if (cfg.stall && !cfg.start_trigger)
        params.stall_poll_nrs = poll_family_numbers();
    if (cfg.stall)
        params.stall_restart_nr = syscall_number("restart_syscall").value_or(0);
    const std::string source = render_delay_program(params);
    if (cfg.bpf.print_ebpf) {
        std::cout << source;
        return 0;
    }

    BpfSession session(source, cfg.bpf.debug);
    session.attach(load_probe_set("delay", probes_on(cfg.features, cfg.stall.has_value())));
    if (params.block)
        session.attach(load_probe_set("block", block_features(params.block)));
    if (upcalls.probe != UpcallPlan::Probe::none)
        session.attach(load_probe_set("upcall", {upcalls.feature()}));
    for (const auto& [pid, r] : start)
        attach_trigger(session, r, kStartTriggerFunction, pid ? pid : target);
    for (const auto& [pid, r] : stop)
        attach_trigger(session, r, kStopTriggerFunction, pid ? pid : target);

    // Signals are taken over only now: until here Ctrl-C ends kdelay at once,
    // even inside a compile or a blocking open, and nothing is left behind
    // (a command held at the door sees its pipe close and exits).
    EventWait wait;
    DelayCollector collector(session, params,
                             namespace_pids ? namespace_pids->learner() : std::function<PidMap()>());
    if (!upcalls.note.empty())
        writer.note(upcalls.note);
    if (!params.block)
        writer.note(std::string("No BLOCK I/O STATISTICS: this kernel lacks ") + kBlockLayoutNeeds);
    for (pid_t pid : targets)
        wait.watch_process(pid);
    const auto release = [&] {
        if (launcher)
            launcher->release();
    };
    if (cfg.stall)
        watch_stalls(cfg, targets, collector, wait, writer, release);
    else
        run_samples(cfg, targets, collector, wait, writer, release);
    return 0;
}

}  // namespace kdelay
