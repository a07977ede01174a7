// The writers that carry names any process may choose into files and
// streams other programs parse: the JSON report (each line one JSON value,
// as many as with plain names), Prometheus label values (each sample one
// line of the exposition format), a trace's file name (only letters,
// digits, '.', '_' and '-'), and --unit's test of a cgroup path.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "delay/report_sections.h"
#include "fuzz_input.h"
#include "report/prometheus_text.h"
#include "report/writers.h"
#include "sys/cgroup.h"
#include "timeline/trace_file.h"

namespace {

using namespace kdelay;

size_t lines(const std::string& text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

std::string json_report(const std::vector<std::string>& n)
{
    const auto name = [&](size_t i) { return n[i % n.size()]; };
    ThreadSample t;
    t.tid = 7;
    t.pid = 7;
    t.name = name(0);
    t.syscalls = {{7, "poll", {1, 10, 10, 10}}};
    t.hardirqs = {{name(1), 0, {1, 5, 5, 5}}};
    TimeBudget b;
    b.window_ns = 100;
    b.wakers = {{{WakerKind::task, 8, 7, name(2)}, 1, 30}};
    b.ready_blame = {{{HolderKind::task, 9, 7, name(3)}, 30}};
    TimeBudget::Profile p;
    p.stacks = {{1, 10, {name(4), name(5)}}};
    p.modules[name(6)] = {name(7), name(8)};
    b.profile = p;
    t.budget = b;
    t.profile = p;
    Sample s;
    s.threads = {t};
    std::ostringstream out;
    auto writer = make_json_writer(out);
    writer->report(delay_report(s));
    writer->warning(name(9));
    writer->note(name(0));
    return out.str();
}

std::string prometheus(const std::vector<std::string>& n)
{
    MetricFamily f{"kdelay_stalls_total", "Stalls.", "counter", {}};
    for (size_t i = 0; i + 1 < n.size(); i += 2)
        f.samples.push_back({"", {{"process", n[i]}, {"thread", n[i + 1]}}, 1});
    return prometheus_text({f});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::vector<std::string> names = kdfuzz::words(data, size, 10);
    const std::string json = json_report(names);
    std::istringstream in(json);
    for (std::string line; std::getline(in, line);)
        if (!nlohmann::json::accept(line))
            std::abort();  // a line that is not one JSON value
    if (lines(json) != lines(json_report(std::vector<std::string>(names.size(), "x"))))
        std::abort();  // a name added or removed a line
    std::vector<std::string> pairs = names;
    if (pairs.size() % 2)
        pairs.pop_back();
    const std::string prom = prometheus(pairs);
    if (lines(prom) != 2 + pairs.size() / 2)
        std::abort();  // HELP, TYPE and a line a sample
    const std::string file = trace_file_name(
        TraceFileName{names[0], 1, names.size() > 1 ? names[1] : "", 2, std::chrono::system_clock::time_point{}});
    for (const unsigned char c : file)
        if (!std::isalnum(c) && c != '.' && c != '_' && c != '-')
            std::abort();  // a byte a file name must not have
    (void)system_unit_path(names[0]);
    return 0;
}
