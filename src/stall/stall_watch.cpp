#include "stall/stall_watch.h"

#include <algorithm>
#include <fmt/format.h>
#include <chrono>
#include <iostream>
#include <map>

#include "core/error.h"
#include "delay/delay_mode.h"
#include "delay/report_sections.h"
#include "delay/sample_reading.h"
#include "delay/sampler.h"
#include "report/format.h"
#include "report/writer.h"
#include "delay/thread_timeline.h"
#include "timeline/perfetto.h"
#include "timeline/trace_file.h"
#include "report/prometheus_text.h"
#include "sys/cgroup.h"
#include "sys/systemd.h"
#include "sys/event_wait.h"
#include "stall/stall_limit.h"
#include "stall/stall_metrics.h"
#include "stall/stall_profile.h"
#include "sys/output_dir.h"
#include "stall/stall_reader.h"

namespace kdelay {
namespace {

using Clock = EventWait::Clock;
// How often the loop looks at Ctrl-C and the target between stalls.
constexpr auto kWakeEvery = std::chrono::milliseconds(100);

// The stall's files (--timeline, --profile-folded) are named alike.
TraceFileName file_name(const StallReport& r)
{
    return TraceFileName{r.process_name, r.thread.pid, r.thread.name, r.thread.tid, r.start_wall};
}

// --timeline: the stall's trace file, written before its report names it.
std::string write_timeline(OutputDir& dir, const Stall& stall, const StallReport& r)
{
    ThreadEvents events;
    events.start_ns = stall.start_ns;
    events.end_ns = stall.end_ns;
    events.pid = r.thread.pid;
    events.tid = r.thread.tid;
    events.process = printable(r.process_name);
    events.thread = printable(r.thread.name);
    events.events = *stall.timeline;
    events.states_not_kept = stall.states_not_kept;
    events.longest_waits = stall.longest_waits;
    const std::string name = trace_file_name(file_name(r));
    Timeline timeline = threads_timeline({events});
    for (const TimedSample& t : stall.profile_samples) {
        const std::vector<std::string>& frames = stall.profile->stacks[t.stack].frames;
        const bool in_kernel = !frames.empty() && frames.back().size() >= 8 &&
                               frames.back().compare(frames.back().size() - 8, 8, "[kernel]") == 0;
        timeline.samples.push_back(TimelineSample{t.at_ns, r.thread.pid, r.thread.tid, frames, in_kernel});
    }
    if (stall.profile)
        for (const auto& [name, module] : stall.profile->modules)
            timeline.build_ids[name] = module.build_id;
    return dir.create(name, perfetto_trace(timeline));
}

// A stall as the writers print it: its thread's sections, and its start by
// the wall clock too.
// timeline_dir, folded_dir: --timeline's and --profile-folded's (null: none).
StallReport stall_report(Stall stall, OutputDir* timeline_dir, OutputDir* folded_dir)
{
    StallReport s;
    s.process_name = std::move(stall.process_name);
    s.start_ns = stall.start_ns;
    s.end_ns = stall.end_ns;
    s.voluntary_switches = stall.voluntary_switches;
    s.involuntary_switches = stall.involuntary_switches;
    const int64_t ago = static_cast<int64_t>(monotonic_ns()) - static_cast<int64_t>(stall.start_ns);
    s.start_wall = std::chrono::system_clock::now() - std::chrono::nanoseconds(ago);
    Report report = delay_report(std::move(stall.sample));
    if (!report.threads.empty())
        s.thread = std::move(report.threads.front());
    for (Section& section : s.thread.sections)
        if (auto* b = std::get_if<BudgetSection>(&section); b && b->budget) {
            b->budget->longest_waits = stall.longest_waits;
            b->budget->profile = stall.profile;
        }
    if (folded_dir && stall.profile) {
        const std::string name = trace_file_name(file_name(s), ".folded");
        try {
            s.profile_folded_path = folded_dir->create(name, folded_stacks(*stall.profile));
        } catch (const Error& e) {
            std::cerr << "kdelay: warning: " << printable(e.what()) << std::endl;  // the report goes on without it
        }
    }
    if (timeline_dir && stall.timeline) {
        try {
            s.timeline_path = write_timeline(*timeline_dir, stall, s);
            s.timeline_not_kept = stall.events_written - std::min<uint64_t>(stall.events_written, stall.timeline->size());
        } catch (const Error& e) {
            std::cerr << "kdelay: warning: " << printable(e.what()) << std::endl;  // the report goes on without it
        }
    }
    return s;
}

// What a watch has lost so far, told as it grows: on stderr, and to the
// writer (JSON: a "lost" line), not only in the closing warnings.
class LossWatch {
public:
    LossWatch(StallReader& collector, ReportWriter& writer, StallMetrics* metrics)
        : collector_(collector), writer_(writer), metrics_(metrics)
    {
    }

    // At most once a second, unless now (the watch's end): the counts take
    // about 25 bpf(2) calls, and the watch wakes ten times a second.
    void check(bool now = false)
    {
        const auto at = std::chrono::steady_clock::now();
        if (!now && at < next_check_)
            return;
        next_check_ = at + std::chrono::seconds(1);
        tell("stalls", collector_.stalls_dropped(), [](uint64_t n) {
            return with_commas(n) + " stalls lost: the stalls ring buffer was full";
        });
        tell("unread stalls", collector_.stalls_unwatched(), [](uint64_t n) {
            return with_commas(n) + " stalls not reported: each began while kdelay had yet to read two earlier "
                                    "stalls of its thread";
        });
        tell("probe runs", collector_.skipped_runs(), [](uint64_t n) {
            return "the kernel skipped " + with_commas(n) +
                   " runs of kdelay's probes (a probe preempted on a CPU keeps every other run of it there out "
                   "until it resumes; 7.2 runs the syscall probes preemptibly): the stalls' syscall counts may be "
                   "short by as many, and a loop's wait that returned without blocking may begin no interval";
        });
        tell("profile samples", collector_.profile_samples_lost(), [](uint64_t n) {
            return with_commas(n) + " profile samples lost: each came after its interval had " +
                   with_commas(KD_PROFILE_SAMPLES) + " (the kernel's store of an interval)";
        });
        tell("stack copies", collector_.stack_copies_lost(), [](uint64_t n) {
            return with_commas(n) + " profile samples' user stacks not copied (the stack_copies ring buffer was "
                                    "full): those are walked by frame pointers";
        });
        tell("exits", collector_.exits_dropped(), [](uint64_t n) {
            return with_commas(n) + " thread exits not seen by kdelay (the exits ring buffer was full): those "
                                    "threads' values stay in the maps";
        });
        for (const MapOverflow& m : collector_.map_full()) {
            const std::string what = std::string(m.what) + " map";
            tell(what, m.lost, [&](uint64_t n) { return "the " + what + " was full: " + with_commas(n) + " updates lost"; });
        }
    }

private:
    template <class Text>
    void tell(const std::string& what, uint64_t total, Text text)
    {
        uint64_t& told = told_[what];
        if (total <= told)
            return;
        const Loss loss{what, total - told, total, text(total - told)};
        told = total;
        std::cerr << "kdelay: lost: " << loss.text << std::endl;
        writer_.lost(loss);
        if (metrics_)
            metrics_->lost(loss);
    }

    StallReader& collector_;
    ReportWriter& writer_;
    StallMetrics* metrics_;
    std::map<std::string, uint64_t> told_;
    std::chrono::steady_clock::time_point next_check_{};
};

// --metrics: the counts, rewritten whole every few seconds and at the end.
class MetricsFile {
public:
    static constexpr auto kEvery = std::chrono::seconds(5);

    MetricsFile(const std::string& path, uint64_t threshold_ns)
        : dir_(split_path(path).first, "--metrics"), name_(split_path(path).second), counts_(threshold_ns)
    {
    }
    StallMetrics& counts() { return counts_; }

    void write_if_due(StallReader& collector, bool now = false)
    {
        if (!now && Clock::now() < next_)
            return;
        counts_.intervals(collector.loop_intervals());
        counts_.threads_tracked(collector.threads_tracked());
        dir_.replace(name_, prometheus_text(counts_.families(
                                run_time_.on() ? collector.program_stats() : std::vector<ProgramStats>{})));
        next_ = Clock::now() + kEvery;
    }

private:
    OutputDir dir_;  // opened once: a link swapped in for its path later changes nothing
    std::string name_;
    StallMetrics counts_;
    RunTimeStats run_time_;  // the kernel counts the programs' run time while it lives
    Clock::time_point next_{};
};

}  // namespace

void watch_stalls(const DelayConfig& cfg, DelayRun& run, ReportWriter& writer)
{
    StallReader collector(run.session(), run.params(), run.ids());
    EventWait& wait = run.wait();
    const std::vector<pid_t>& targets = run.targets();
    // The directories, opened once, before the watch begins.
    std::optional<OutputDir> timeline_dir, folded_dir;
    if (!cfg.timeline.empty())
        timeline_dir.emplace(cfg.timeline, "--timeline");
    if (!cfg.profile_folded.empty())
        folded_dir.emplace(cfg.profile_folded, "--profile-folded");
    std::optional<MetricsFile> metrics;
    if (!cfg.metrics.empty()) {
        metrics.emplace(cfg.metrics, *cfg.stall);
        metrics->write_if_due(collector, true);  // a file that cannot be written fails now, not in a week
    }
    StallLimiter limiter(cfg.stall_reports_per_minute);
    ServiceNotifier service;
    collector.start();
    writer.marker(Marker{Marker::Kind::watch, std::chrono::system_clock::now()});
    run.release_command();
    const std::string watching = fmt::format("watching for stalls of {:g} ms or longer", double(*cfg.stall) / 1e6);
    service.ready(watching);
    const auto end = cfg.duration > 0 ? Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                           std::chrono::duration<double>(cfg.duration))
                                      : Clock::time_point::max();
    LossWatch losses(collector, writer, metrics ? &metrics->counts() : nullptr);
    uint64_t seen = 0;
    const auto report = [&](Clock::time_point deadline, bool last = false) {
        for (Stall& s : collector.take_stalls(deadline)) {
            const StallReport r = stall_report(std::move(s), timeline_dir ? &*timeline_dir : nullptr,
                                               folded_dir ? &*folded_dir : nullptr);
            service.status(watching + "; " + with_commas(++seen) + " seen");
            if (metrics)
                metrics->counts().stall(r);
            if (limiter.admit(name_without_digits(r.thread.name), r.end_ns - r.start_ns, monotonic_ns()))
                writer.stall(r);
        }
        losses.check(last);
        if (const auto held = limiter.summary(monotonic_ns()))
            writer.warning(*held);
    };
    // A cgroup's unit may stop and start again: the kernel side follows it
    // by name (targets.bpf.h); here the restart is told.
    std::optional<CgroupFollower> cgroup;
    if (cfg.bpf.cgroup)
        cgroup.emplace(*cfg.bpf.cgroup);
    for (;;) {
        report(std::min(end, Clock::now() + kWakeEvery));
        service.keep_alive();
        if (metrics)
            metrics->write_if_due(collector);
        if (cgroup) {
            switch (cgroup->look()) {
            case CgroupFollower::Change::none: break;
            case CgroupFollower::Change::gone:
                writer.note("the target's cgroup " + cfg.bpf.cgroup->path +
                            " is gone (its unit stopped?); watching for it to come back");
                break;
            case CgroupFollower::Change::anew:
                if (metrics)
                    metrics->counts().restart();
                writer.marker(Marker{Marker::Kind::restart, std::chrono::system_clock::now(), std::nullopt,
                                     std::nullopt, cgroup->id()});
                break;
            }
        }
        const EventWait::Wake wake = wait.wait_until(Clock::now());
        if (wake == EventWait::Wake::target_exited) {
            report(Clock::now(), true);
            writer.note(std::string(targets.size() > 1 ? "the target's processes" : "the target") +
                        " exited; watching ends here");
            break;
        }
        if (wake == EventWait::Wake::interrupted || Clock::now() >= end)
            break;
    }
    report(Clock::now(), true);  // the stalls that ended meanwhile
    if (const auto held = limiter.summary(monotonic_ns(), true))
        writer.warning(*held);
    if (metrics)
        metrics->write_if_due(collector, true);
    writer.marker(Marker{Marker::Kind::watch_end, std::chrono::system_clock::now()});

    warn_map_losses(collector.map_full(), collector.bios_lost(), writer);
    if (const uint64_t n = collector.stalls_dropped())
        writer.warning(with_commas(n) + " stalls were lost: the stalls ring buffer was full.");
    if (const uint64_t n = collector.stalls_unwatched())
        writer.warning(with_commas(n) +
                       " stalls were not reported: each began while kdelay had yet to read two earlier "
                       "stalls of its thread.");
}

}  // namespace kdelay
