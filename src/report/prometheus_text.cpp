#include "report/prometheus_text.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fmt/format.h>

#include "core/error.h"
#include "report/format.h"

namespace kdelay {
namespace {

// A label value: printable() makes any bytes valid UTF-8 without controls;
// then the format's own escapes.
std::string label_value(const std::string& value)
{
    std::string out;
    for (const char c : printable(value)) {
        if (c == '\\' || c == '"')
            out += '\\';
        out += c;
    }
    return out;
}

std::string number(double v)
{
    if (std::isinf(v))
        return v > 0 ? "+Inf" : "-Inf";
    if (v == std::floor(v) && std::fabs(v) < 1e15)
        return fmt::format("{:.0f}", v);
    return fmt::format("{}", v);
}

}  // namespace

std::string prometheus_text(const std::vector<MetricFamily>& families)
{
    std::string out;
    for (const MetricFamily& f : families) {
        out += "# HELP " + f.name + " " + f.help + "\n";
        out += "# TYPE " + f.name + " " + f.type + "\n";
        for (const MetricSample& s : f.samples) {
            out += f.name + s.suffix;
            if (!s.labels.empty()) {
                out += "{";
                for (size_t i = 0; i < s.labels.size(); ++i)
                    out += (i ? "," : "") + s.labels[i].first + "=\"" + label_value(s.labels[i].second) + "\"";
                out += "}";
            }
            out += " " + number(s.value) + "\n";
        }
    }
    return out;
}

void add_histogram(MetricFamily& family, const Labels& labels, const std::vector<double>& bounds,
                   const std::vector<uint64_t>& counts, uint64_t past_last, double sum)
{
    uint64_t cumulative = 0;
    for (size_t i = 0; i < bounds.size(); ++i) {
        cumulative += i < counts.size() ? counts[i] : 0;
        Labels l = labels;
        l.emplace_back("le", number(bounds[i]));
        family.samples.push_back(MetricSample{"_bucket", std::move(l), static_cast<double>(cumulative)});
    }
    cumulative += past_last;
    Labels l = labels;
    l.emplace_back("le", "+Inf");
    family.samples.push_back(MetricSample{"_bucket", std::move(l), static_cast<double>(cumulative)});
    family.samples.push_back(MetricSample{"_sum", labels, sum});
    family.samples.push_back(MetricSample{"_count", labels, static_cast<double>(cumulative)});
}

}  // namespace kdelay
