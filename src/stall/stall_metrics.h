// What a stall watch counts for Prometheus (--metrics): stalls and loop
// intervals by process and thread name (digits left out, so that the
// series stay few), the stall-length histogram, losses, restarts of the
// target, and kdelay's own cost.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "loader/session.h"
#include "report/prometheus_text.h"
#include "report/report.h"
#include "report/writer.h"

namespace kdelay {

class StallMetrics {
public:
    explicit StallMetrics(uint64_t threshold_ns) : threshold_ns_(threshold_ns) {}

    void stall(const StallReport& s);
    void restart() { ++restarts_; }
    void lost(const Loss& loss) { lost_[loss.what] = loss.total; }
    // The loop intervals so far, by process name and thread name.
    void intervals(const std::map<std::pair<std::string, std::string>, uint64_t>& counts);
    void threads_tracked(size_t n) { threads_tracked_ = n; }

    // programs: the BPF programs' run time, when the kernel counts it.
    std::vector<MetricFamily> families(const std::vector<ProgramStats>& programs) const;

    // Bounds of the stall-length histogram, in seconds.
    static const std::vector<double>& bounds();

private:
    using Key = std::pair<std::string, std::string>;  // process, thread
    // Past this many label sets, the rest are counted as one.
    static constexpr size_t kMaxSeries = 512;
    Key key(const std::string& process, const std::string& thread, const std::map<Key, uint64_t>& in) const;

    struct Lengths {
        std::vector<uint64_t> counts;
        uint64_t past_last = 0;
        double sum = 0;
    };
    uint64_t threshold_ns_;
    std::map<Key, uint64_t> stalls_;
    std::map<Key, uint64_t> intervals_;
    std::map<std::string, Lengths> lengths_;  // by process
    std::map<std::string, uint64_t> lost_;
    uint64_t restarts_ = 0;
    size_t threads_tracked_ = 0;
};

}  // namespace kdelay
