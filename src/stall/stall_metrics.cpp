#include "stall/stall_metrics.h"

#include <algorithm>
#include <sys/resource.h>

#include "report/format.h"

namespace kdelay {
namespace {

const std::string kOther = "(other)";
const std::string kUnknown = "(unknown)";

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; }

MetricFamily counter(const std::string& name, const std::string& help)
{
    return MetricFamily{name, help, "counter", {}};
}

}  // namespace

const std::vector<double>& StallMetrics::bounds()
{
    static const std::vector<double> b = {0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
    return b;
}

StallMetrics::Key StallMetrics::key(const std::string& process, const std::string& thread,
                                    const std::map<Key, uint64_t>& in) const
{
    Key k{process.empty() ? kUnknown : name_without_digits(process), name_without_digits(thread)};
    if (in.size() >= kMaxSeries && !in.count(k))
        return {kOther, kOther};
    return k;
}

void StallMetrics::stall(const StallReport& s)
{
    ++stalls_[key(s.process_name, s.thread.name, stalls_)];
    const double length = static_cast<double>(s.end_ns > s.start_ns ? s.end_ns - s.start_ns : 0) / 1e9;
    const std::string process = key(s.process_name, "", stalls_).first;
    Lengths& l = lengths_[lengths_.size() >= kMaxSeries && !lengths_.count(process) ? kOther : process];
    l.counts.resize(bounds().size());
    const auto at = std::lower_bound(bounds().begin(), bounds().end(), length);
    if (at == bounds().end())
        ++l.past_last;
    else
        ++l.counts[static_cast<size_t>(at - bounds().begin())];
    l.sum += length;
}

void StallMetrics::intervals(const std::map<std::pair<std::string, std::string>, uint64_t>& counts)
{
    std::map<Key, uint64_t> by_key;
    for (const auto& [names, n] : counts)
        by_key[key(names.first, names.second, by_key)] += n;
    // A counter never goes down: a thread pool's names come and go.
    for (const auto& [k, n] : by_key)
        intervals_[k] = std::max(intervals_[k], n);
}

std::vector<MetricFamily> StallMetrics::families(const std::vector<ProgramStats>& programs) const
{
    std::vector<MetricFamily> f;
    const auto by_thread = [](MetricFamily family, const std::map<Key, uint64_t>& counts) {
        for (const auto& [k, n] : counts)
            family.samples.push_back(MetricSample{"", {{"process", k.first}, {"thread", k.second}}, double(n)});
        return family;
    };
    f.push_back(by_thread(counter("kdelay_stalls_total",
                                  "Loop intervals of the threshold or longer (stalls), by process and thread name "
                                  "without digits."),
                          stalls_));
    f.push_back(by_thread(counter("kdelay_loop_intervals_total",
                                  "Loop intervals begun, stalls or not, by process and thread name without digits."),
                          intervals_));
    MetricFamily lengths{"kdelay_stall_seconds", "Length of each stall, by process name without digits.",
                         "histogram", {}};
    for (const auto& [process, l] : lengths_)
        add_histogram(lengths, {{"process", process}}, bounds(), l.counts, l.past_last, l.sum);
    f.push_back(std::move(lengths));
    MetricFamily lost = counter("kdelay_lost_total", "What the watch lost, by what: stalls, unread stalls, exits "
                                                     "and map updates.");
    for (const auto& [what, n] : lost_)
        lost.samples.push_back(MetricSample{"", {{"what", what}}, double(n)});
    f.push_back(std::move(lost));
    MetricFamily restarts = counter("kdelay_target_restarts_total",
                                    "Times the target's cgroup was made anew (its unit restarted) and followed.");
    restarts.samples.push_back(MetricSample{"", {}, double(restarts_)});
    f.push_back(std::move(restarts));
    MetricFamily tracked{"kdelay_threads_tracked",
                         "Threads with an entry in the watch's maps now: the target's live threads.", "gauge", {}};
    tracked.samples.push_back(MetricSample{"", {}, double(threads_tracked_)});
    f.push_back(std::move(tracked));
    MetricFamily threshold{"kdelay_stall_threshold_seconds", "The shortest interval counted as a stall.", "gauge", {}};
    threshold.samples.push_back(MetricSample{"", {}, double(threshold_ns_) / 1e9});
    f.push_back(std::move(threshold));
    rusage self{};
    getrusage(RUSAGE_SELF, &self);
    MetricFamily cpu = counter("kdelay_cpu_seconds_total", "kdelay's own CPU time, by mode.");
    cpu.samples.push_back(MetricSample{"", {{"mode", "user"}}, seconds(self.ru_utime)});
    cpu.samples.push_back(MetricSample{"", {{"mode", "system"}}, seconds(self.ru_stime)});
    f.push_back(std::move(cpu));
    MetricFamily rss{"kdelay_max_rss_bytes", "kdelay's largest resident set so far.", "gauge", {}};
    rss.samples.push_back(MetricSample{"", {}, double(self.ru_maxrss) * 1024});
    f.push_back(std::move(rss));
    if (!programs.empty()) {
        MetricFamily run = counter("kdelay_bpf_run_seconds_total",
                                   "Time the kernel spent in each of kdelay's BPF programs (bpf_prog_info).");
        MetricFamily runs = counter("kdelay_bpf_runs_total", "Runs of each of kdelay's BPF programs.");
        for (const ProgramStats& p : programs) {
            run.samples.push_back(MetricSample{"", {{"program", p.function}}, double(p.run_time_ns) / 1e9});
            runs.samples.push_back(MetricSample{"", {{"program", p.function}}, double(p.runs)});
        }
        f.push_back(std::move(run));
        f.push_back(std::move(runs));
    }
    return f;
}

}  // namespace kdelay
