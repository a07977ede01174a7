// Counts for Prometheus in its text exposition format (version 0.0.4), as
// node_exporter's textfile collector reads them: metric families, each with
// HELP and TYPE, label values escaped and valid UTF-8.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kdelay {

using Labels = std::vector<std::pair<std::string, std::string>>;

struct MetricSample {
    std::string suffix;  // a histogram's "_bucket", "_sum", "_count"; else empty
    Labels labels;
    double value = 0;
};

struct MetricFamily {
    std::string name;
    std::string help;
    std::string type;  // counter, gauge, histogram
    std::vector<MetricSample> samples;
};

// The families as exposition text; a label value may hold any byte.
std::string prometheus_text(const std::vector<MetricFamily>& families);

// A histogram's samples (cumulative buckets, then _sum and _count) under
// labels, from counts of values in each bound's bucket (values above the
// last bound: past_last); bounds ascending, in the value's unit.
void add_histogram(MetricFamily& family, const Labels& labels, const std::vector<double>& bounds,
                   const std::vector<uint64_t>& counts, uint64_t past_last, double sum);

}  // namespace kdelay
