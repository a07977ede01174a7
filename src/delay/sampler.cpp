#include "delay/sampler.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>
#include <optional>

#include "core/error.h"
#include "delay/report_sections.h"
#include "delay/sample_source.h"
#include "report/format.h"
#include "report/status_line.h"
#include "report/writer.h"
#include "sys/event_wait.h"
#include "sys/output_dir.h"
#include "timeline/perfetto.h"

namespace kdelay {
namespace {

using Clock = EventWait::Clock;
using Phase = CaptureState::Phase;

// How the notes name the target: "Target process 12", "Target processes 12, 34".
std::string target_label(const std::vector<pid_t>& targets)
{
    return fmt::format("Target process{} {}", targets.size() > 1 ? "es" : "", fmt::join(targets, ", "));
}

// How often the capture state is read while waiting for a trigger.
constexpr auto kStatePoll = std::chrono::milliseconds(10);
// How often the status line is redrawn.
constexpr auto kStatusEvery = std::chrono::milliseconds(250);

Clock::duration seconds(double s)
{
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

auto wall_now() { return std::chrono::system_clock::now(); }

// steady_clock and bpf_ktime_get_ns() are both CLOCK_MONOTONIC.
Clock::time_point from_ktime(uint64_t ns)
{
    return Clock::time_point(std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(ns)));
}

enum class Outcome { reached, deadline, interrupted, exited };

class Sampler {
public:
    Sampler(const DelayConfig& cfg, const std::vector<pid_t>& targets, SampleSource& collector, EventWait& wait,
            ReportWriter& writer)
        : cfg_(cfg), target_(target_label(targets)), collector_(collector), wait_(wait), writer_(writer)
    {
        if (!cfg.timeline.empty())
            timeline_file_.emplace(split_path(cfg.timeline).first, "--timeline");
    }

    void run(const std::function<void()>& on_first_start);

private:
    // Waits, consuming events, until reached() holds, the deadline passes,
    // or Ctrl-C or the target's exit.
    // With poll_once, looks for a signal or exit even when the deadline has
    // already passed.
    Outcome wait_for(Clock::time_point deadline, const std::function<bool()>& reached,
                     bool poll_once = false);
    void draw_status(Clock::time_point deadline);
    // One sample; false when the run must end.
    bool sample(bool& counted, const std::function<void()>& on_start);
    void warnings();
    // --timeline: the sample's threads' events added to the trace, which is
    // written anew, so that what was collected is kept whatever comes next.
    void add_to_timeline(const Sample& s);
    Timeline timeline_;
    std::optional<OutputDir> timeline_file_;  // its directory, opened once

    const DelayConfig& cfg_;
    const std::string target_;  // "Target process 12", "Target processes 12, 34"
    SampleSource& collector_;
    EventWait& wait_;
    ReportWriter& writer_;
    StatusLine status_;
    const char* activity_ = "";  // what wait_for is waiting for, for the status line
    unsigned sample_no_ = 0;
    Clock::time_point next_status_;
    uint64_t lost_stacks_ = 0;
    uint64_t skipped_runs_ = 0;  // by the kernel, over the counted samples
    uint64_t dump_misses_ = 0;    // start triggers that fired during the last dump
    uint64_t missed_starts_ = 0;  // ... summed over dumps that had a sample after them
};

void Sampler::draw_status(Clock::time_point deadline)
{
    const auto now = Clock::now();
    if (!status_.enabled() || now < next_status_)
        return;
    next_status_ = now + kStatusEvery;
    std::string text = "kdelay: sample " + std::to_string(sample_no_) + "/" +
                       std::to_string(cfg_.sample_count) + ", " + activity_;
    if (deadline != Clock::time_point::max()) {
        const double left = std::chrono::duration<double>(deadline - now).count();
        text += fmt::format(", {:.1f} s left", std::max(0.0, left));
    }
    if (std::string(activity_) == "sampling")
        text += ", " + with_commas(collector_.progress()) +
                (collector_.has_events() ? " syscall events" : " syscalls");
    status_.show(text + "  (Ctrl-C: stop and report)");
}

Outcome Sampler::wait_for(Clock::time_point deadline, const std::function<bool()>& reached,
                          bool poll_once)
{
    for (;;) {
        if (reached && reached())
            return Outcome::reached;
        const auto now = Clock::now();
        if (now >= deadline && !poll_once)
            return Outcome::deadline;
        poll_once = false;
        draw_status(deadline);
        // Wake every kStatePoll to read the capture state or drain events,
        // every kStatusEvery for the status line; otherwise sleep until the deadline.
        const bool busy = reached || collector_.streams();
        const auto step = busy ? std::min(deadline, now + kStatePoll)
                               : std::min(deadline, status_.enabled() ? now + kStatusEvery : deadline);
        collector_.poll_events(step);
        switch (wait_.wait_until(step)) {
        case EventWait::Wake::interrupted: status_.clear(); return Outcome::interrupted;
        case EventWait::Wake::target_exited: status_.clear(); return Outcome::exited;
        case EventWait::Wake::timeout: break;
        }
    }
}

bool Sampler::sample(bool& counted, const std::function<void()>& on_start)
{
    counted = false;
    const auto phase_is = [this](Phase p) { return [this, p] { return collector_.capture_state().phase == p; }; };
    Outcome outcome;

    // Start.
    Clock::time_point started;
    ++sample_no_;
    status_.clear();
    if (cfg_.start_trigger) {
        collector_.arm();
        on_start();
        activity_ = "waiting for the start trigger";
        outcome = wait_for(Clock::time_point::max(), [&] {
            return collector_.capture_state().phase != Phase::armed;
        });
        status_.clear();
        if (outcome != Outcome::reached) {
            collector_.reset();  // nothing was captured
            writer_.note(outcome == Outcome::exited ? target_ + " exited before the start trigger fired"
                                                    : "Interrupted while waiting for the start trigger");
            return false;
        }
        const auto state = collector_.capture_state();
        started = from_ktime(state.start_trigger_ns);
        writer_.marker({Marker::Kind::start, wall_now(), state.start_trigger_ns, std::nullopt});
    } else {
        // Capture first: whoever acts on the start line (a test, a script)
        // must find it already on.
        collector_.start_capture();
        started = Clock::now();
        writer_.marker({Marker::Kind::start, wall_now(), std::nullopt, std::nullopt});
        on_start();
    }

    // Run until the stop trigger, or for --sample-time.
    activity_ = "sampling";
    if (cfg_.stop_trigger)
        outcome = wait_for(Clock::time_point::max(), phase_is(Phase::dumping));
    else
        outcome = wait_for(started + seconds(cfg_.sample_time), nullptr);
    status_.clear();
    collector_.stop_capture();
    const uint64_t misses_before_dump = cfg_.start_trigger ? collector_.trigger_misses() : 0;
    const auto state = collector_.capture_state();
    writer_.marker({Marker::Kind::stop, wall_now(),
                    state.stop_trigger_ns ? std::optional<uint64_t>(state.stop_trigger_ns) : std::nullopt,
                    std::nullopt});
    if (outcome == Outcome::exited)
        writer_.note(target_ + " exited; the sample ends here");
    else if (outcome == Outcome::interrupted)
        writer_.note("Interrupted; reporting what was collected");

    // Dump, or skip a triggered sample shorter than --trigger-delta.
    const bool both = state.start_trigger_ns && state.stop_trigger_ns;
    const uint64_t delta = both ? state.stop_trigger_ns - state.start_trigger_ns : 0;
    if (both && delta < cfg_.trigger_delta) {
        writer_.marker({Marker::Kind::dump_skipped, wall_now(), std::nullopt, delta});
    } else {
        writer_.marker({Marker::Kind::dump, wall_now(), std::nullopt,
                        both ? std::optional<uint64_t>(delta) : std::nullopt});
        Sample s = collector_.collect();
        if (!cfg_.timeline.empty())
            add_to_timeline(s);
        for (const auto& e : s.events)
            lost_stacks_ += e.stack_lost;
        skipped_runs_ += s.probe_runs_skipped;
        writer_.report(delay_report(std::move(s)));
        counted = true;
    }
    collector_.reset();
    if (cfg_.start_trigger)
        dump_misses_ = collector_.trigger_misses() - misses_before_dump;
    return outcome == Outcome::deadline || outcome == Outcome::reached;
}

void Sampler::add_to_timeline(const Sample& s)
{
    timeline_.add(threads_timeline(s.timelines));
    try {
        timeline_file_->replace(split_path(cfg_.timeline).second, perfetto_trace(timeline_), 0640);
    } catch (const Error& e) {
        std::cerr << "kdelay: warning: " << printable(e.what()) << std::endl;  // the report goes on without it
        return;
    }
    uint64_t not_kept = 0;
    for (const ThreadEvents& t : s.timelines)
        not_kept += t.states_not_kept;
    writer_.note("timeline: " + cfg_.timeline +
                 (not_kept ? " (its threads' first " + with_commas(not_kept) + " state changes not kept)" : ""));
}

void Sampler::run(const std::function<void()>& on_first_start)
{
    bool first = true;
    auto on_start = [&] {
        if (first && on_first_start)
            on_first_start();
        first = false;
    };
    for (unsigned done = 0; done < cfg_.sample_count;) {
        bool counted;
        if (!sample(counted, on_start))
            break;
        done += counted;
        if (done >= cfg_.sample_count)
            break;
        // A Ctrl-C or exit during the dump ends the run here, not after one
        // more (empty) sample.
        activity_ = "pausing between samples";
        const Outcome pause = wait_for(Clock::now() + seconds(cfg_.sample_interval), nullptr, true);
        if (pause == Outcome::exited)
            writer_.note(target_ + " exited; no more samples");
        if (pause != Outcome::deadline)
            break;
        missed_starts_ += dump_misses_;  // a sample follows this dump
    }
    warnings();
}

void Sampler::warnings()
{
    status_.clear();
    warn_map_losses(collector_.map_full(), collector_.bios_lost(), writer_);
    if (lost_stacks_ > 0)
        writer_.warning(with_commas(lost_stacks_) +
                        " syscall events have no stack trace; consider a larger "
                        "--stack-trace-size (a stack id collision can also cause this).");
    if (skipped_runs_ > 0)
        writer_.warning("the kernel skipped " + with_commas(skipped_runs_) +
                        " runs of kdelay's probes: a probe preempted on a CPU keeps every other run of it "
                        "there out until it resumes (7.2 runs the syscall probes preemptibly); the numbers "
                        "above may be short by as many.");
    if (const uint64_t dropped = collector_.events_dropped())
        writer_.warning("not all events were captured: " + with_commas(dropped) +
                        " were dropped; increase the ring buffer with --buffer-page-count.");
    if (missed_starts_ > 0)
        writer_.warning(with_commas(missed_starts_) +
                        " start triggers fired while kdelay was still dumping the previous sample "
                        "and were missed.");
}

}  // namespace

void warn_map_losses(const std::vector<MapOverflow>& full, uint64_t bios_lost, ReportWriter& writer)
{
    for (const MapOverflow& m : full)
        writer.warning("the " + std::string(m.what) + " map was full; " + with_commas(m.lost) +
                       " updates were lost and the numbers above are incomplete.");
    if (const uint64_t lost = bios_lost)
        writer.warning(with_commas(lost) +
                       " block requests were not tracked (too many in flight); block I/O numbers "
                       "are incomplete.");
}

void run_samples(const DelayConfig& cfg, const std::vector<pid_t>& targets, SampleSource& collector, EventWait& wait,
                 ReportWriter& writer, const std::function<void()>& on_first_start)
{
    Sampler(cfg, targets, collector, wait, writer).run(on_first_start);
}

}  // namespace kdelay
