#include "report/prometheus_text.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "core/error.h"
#include "core/write_all.h"
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

void replace_file(const std::string& path, const std::string& text)
{
    const size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    // Hidden, and not *.prom: node_exporter never reads it half written.
    const std::string temp = (slash == std::string::npos ? std::string() : dir) + "." + base + ".tmp";
    const auto fail = [&](const std::string& what) {
        throw Error(Exit::cantcreat, "cannot " + what + " " + printable(path) + ": " + strerror(errno));
    };
    const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        fail("write");
    if (!write_all(fd, text)) {
        const int err = errno;
        close(fd);
        unlink(temp.c_str());
        errno = err;
        fail("write");
    }
    if (close(fd) != 0 || rename(temp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        unlink(temp.c_str());
        errno = err;
        fail("replace");
    }
}

}  // namespace kdelay
