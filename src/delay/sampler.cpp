#include "delay/sampler.h"

#include <chrono>

#include "delay/collector.h"
#include "report/format.h"
#include "report/writer.h"
#include "sys/event_wait.h"

namespace kdelay {
namespace {

EventWait::Clock::duration seconds(double s)
{
    return std::chrono::duration_cast<EventWait::Clock::duration>(std::chrono::duration<double>(s));
}

auto now() { return std::chrono::system_clock::now(); }

}  // namespace

void run_time_mode(const DelayConfig& cfg, DelayCollector& collector, EventWait& wait,
                   ReportWriter& writer, const std::function<void()>& on_first_start)
{
    for (unsigned i = 0; i < cfg.sample_count; ++i) {
        writer.marker("Start sampling", now());
        collector.start_capture();
        if (i == 0 && on_first_start)
            on_first_start();
        const auto wake = wait.wait_until(EventWait::Clock::now() + seconds(cfg.sample_time));
        collector.stop_capture();
        writer.marker("Stop sampling", now());
        if (wake == EventWait::Wake::target_exited)
            writer.note("Target process " + std::to_string(cfg.pid) +
                        " exited; the sample ends here");
        else if (wake == EventWait::Wake::interrupted)
            writer.note("Interrupted; reporting what was collected");
        writer.marker("Sample dump", now());
        writer.sample(collector.collect());
        collector.reset();
        if (wake != EventWait::Wake::timeout)
            break;
        if (i + 1 < cfg.sample_count && cfg.sample_interval > 0 &&
            wait.wait_until(EventWait::Clock::now() + seconds(cfg.sample_interval)) !=
                EventWait::Wake::timeout)
            break;
    }

    const auto full = collector.map_full();
    for (size_t m = 0; m < full.size(); ++m)
        if (full[m] > 0)
            writer.warning("the " + std::string(kDelayMapNames[m]) + " map was full; " +
                           with_commas(full[m]) +
                           " updates were lost and the numbers above are incomplete.");
}

}  // namespace kdelay
