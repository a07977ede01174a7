#include "delay/delay_mode.h"

#include <algorithm>
#include <iostream>
#include <optional>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include "block/block_program.h"
#include "loader/btf_offsets.h"
#include "loader/kernel_features.h"
#include "loader/pid_namespace.h"
#include "loader/probe_set.h"
#include "loader/session.h"
#include "core/error.h"
#include "report/format.h"
#include "delay/collector.h"
#include "delay/program.h"
#include "delay/sampler.h"
#include "delay/upcalls.h"
#include "sys/cgroup.h"
#include "sys/event_wait.h"
#include "sys/launcher.h"
#include "sys/process.h"
#include "sys/tracefs.h"
#include "trigger/resolve.h"

namespace kdelay {
namespace {

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

void list_probes(const DelayConfig& cfg)
{
    const auto probes = list_usdt_probes(cfg.command.empty() ? cfg.bpf.pid() : 0, target_executable(cfg, cfg.bpf.pid()));
    for (const auto& p : probes)
        std::cout << printable(p.provider) << ":" << printable(p.name) << " " << printable(p.shown) << "\n";
    if (probes.empty())
        std::cerr << "kdelay: no USDT probes found" << std::endl;
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

std::unique_ptr<DelayRun> DelayRun::start(const DelayConfig& cfg, ReportWriter& writer)
{
    if (cfg.list_probes) {
        list_probes(cfg);
        return nullptr;
    }
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
    std::unique_ptr<DelayRun> run(new DelayRun);
    if (!cfg.command.empty() && !cfg.bpf.print_ebpf)
        run->launcher_.emplace(cfg.command);
    run->targets_ = run->launcher_ ? std::vector<pid_t>{run->launcher_->pid()} : cfg.bpf.pids;
    const pid_t target = run->targets_.empty() ? 0 : run->targets_.front();  // the command, for its triggers
    size_t threads = cfg.bpf.cgroup ? cgroup_thread_count(cfg.bpf.cgroup->path) : 0;
    for (pid_t pid : run->targets_)
        threads += thread_count(pid);

    // In a PID namespace of kdelay's own, -p's PIDs and the command's are
    // that namespace's: the program compares the kernel's, learnt as the
    // target runs. A cgroup is matched by its id, and its tasks' ids are
    // learnt for the report.
    KernelBtf btf;
    const std::optional<CgroupMatch> cgroup = match_cgroup(cfg.bpf.cgroup, btf);
    run->namespace_pids_ =
        cfg.bpf.print_ebpf ? nullptr : NamespacePids::when_needed(run->targets_, cfg.bpf.debug, cgroup);
    std::vector<pid_t> kernel_targets = run->targets_;
    if (run->namespace_pids_) {
        if (run->launcher_)
            run->launcher_->wake();  // held at the door, it must run once to be seen
        if (!run->targets_.empty())
            kernel_targets = run->namespace_pids_->kernel_tgids();
    }

    const UpcallPlan upcalls = plan_upcalls(cfg.features.upcall_stats);
    run->params_ = delay_program_params(cfg, btf, kernel_targets, cgroup, threads, upcalls.probe);
    const DelayProgramParams& params = run->params_;
    const std::string source = render_delay_program(params);
    if (cfg.bpf.print_ebpf) {
        std::cout << source;
        return nullptr;
    }

    run->session_.emplace(source, cfg.bpf.debug);
    BpfSession& session = *run->session_;
    session.attach(load_probe_set("delay", probes_on(cfg.features, cfg.stall.has_value())));
    if (params.block)
        session.attach(load_probe_set("block", block_features(params.block)));
    if (upcalls.probe != UpcallPlan::Probe::none)
        session.attach(load_probe_set("upcall", {upcalls.feature()}));
    if (params.features.profile_hz)
        session.attach_cpu_clock("kd_profile_sample", 1'000'000'000ull / params.features.profile_hz);
    for (const auto& [pid, r] : start)
        attach_trigger(session, r, kStartTriggerFunction, pid ? pid : target);
    for (const auto& [pid, r] : stop)
        attach_trigger(session, r, kStopTriggerFunction, pid ? pid : target);

    // Signals are taken over only now: until here Ctrl-C ends kdelay at once,
    // even inside a compile or a blocking open, and nothing is left behind
    // (a command held at the door sees its pipe close and exits).
    run->wait_.emplace();
    if (!upcalls.note.empty())
        writer.note(upcalls.note);
    if (!params.block)
        writer.note(std::string("No BLOCK I/O STATISTICS: this kernel lacks ") + kBlockLayoutNeeds);
    for (pid_t pid : run->targets_)
        run->wait_->watch_process(pid);
    return run;
}

DelayRun::~DelayRun() = default;

std::function<PidMap()> DelayRun::ids() const
{
    return namespace_pids_ ? namespace_pids_->learner() : std::function<PidMap()>();
}

void DelayRun::release_command()
{
    if (launcher_)
        launcher_->release();
}

void sample_delays(const DelayConfig& cfg, DelayRun& run, ReportWriter& writer)
{
    DelayCollector collector(run.session(), run.params(), run.ids());
    run_samples(cfg, run.targets(), collector, run.wait(), writer, [&run] { run.release_command(); });
}

}  // namespace kdelay
