#include "delay/stall_watch.h"

#include <algorithm>
#include <chrono>
#include <ctime>

#include "delay/collector.h"
#include "delay/report_sections.h"
#include "delay/sampler.h"
#include "report/format.h"
#include "report/writer.h"
#include "sys/event_wait.h"

namespace kdelay {
namespace {

using Clock = EventWait::Clock;
// How often the loop looks at Ctrl-C and the target between stalls.
constexpr auto kWakeEvery = std::chrono::milliseconds(100);

int64_t clock_ns(clockid_t clock)
{
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// A stall as the writers print it: its thread's sections, and its start by
// the wall clock too.
StallReport stall_report(Stall stall)
{
    StallReport s;
    s.start_ns = stall.start_ns;
    s.end_ns = stall.end_ns;
    const int64_t ago = clock_ns(CLOCK_MONOTONIC) - static_cast<int64_t>(stall.start_ns);
    s.start_wall = std::chrono::system_clock::now() - std::chrono::nanoseconds(ago);
    Report report = delay_report(std::move(stall.sample));
    if (!report.threads.empty())
        s.thread = std::move(report.threads.front());
    return s;
}

}  // namespace

void watch_stalls(const DelayConfig& cfg, const std::vector<pid_t>& targets, DelayCollector& collector,
                  EventWait& wait, ReportWriter& writer, const std::function<void()>& on_start)
{
    collector.start_capture();
    writer.marker(Marker{Marker::Kind::watch, std::chrono::system_clock::now(), std::nullopt, std::nullopt});
    on_start();
    const auto end = cfg.duration > 0 ? Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                           std::chrono::duration<double>(cfg.duration))
                                      : Clock::time_point::max();
    const auto report = [&](Clock::time_point deadline) {
        for (Stall& s : collector.take_stalls(deadline))
            writer.stall(stall_report(std::move(s)));
    };
    for (;;) {
        report(std::min(end, Clock::now() + kWakeEvery));
        const EventWait::Wake wake = wait.wait_until(Clock::now());
        if (wake == EventWait::Wake::target_exited) {
            report(Clock::now());
            writer.note(std::string(targets.size() > 1 ? "the target's processes" : "the target") +
                        " exited; watching ends here");
            break;
        }
        if (wake == EventWait::Wake::interrupted || Clock::now() >= end)
            break;
    }
    report(Clock::now());  // the stalls that ended meanwhile
    writer.marker(Marker{Marker::Kind::watch_end, std::chrono::system_clock::now(), std::nullopt, std::nullopt});

    warn_map_losses(collector, writer);
    if (const uint64_t n = collector.stalls_dropped())
        writer.warning(with_commas(n) + " stalls were lost: the stalls ring buffer was full.");
    if (const uint64_t n = collector.stalls_unwatched())
        writer.warning(with_commas(n) +
                       " stalls were not reported: each began while kdelay had yet to read two earlier "
                       "stalls of its thread.");
}

}  // namespace kdelay
