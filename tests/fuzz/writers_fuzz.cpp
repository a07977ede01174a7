// The writers that carry names any process may choose into files and
// streams other programs parse: the JSON report (each line one JSON value,
// as many as with plain names), the journal's entries (the same fields as
// with plain names, each value printable and one line, KDELAY_JSON one JSON
// value), Prometheus label values (each sample one line of the exposition
// format), a trace's file name (only letters, digits, '.', '_' and '-'),
// and --unit's test of a cgroup path.
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

// Each entry's field names; aborts unless every value is as journalctl's
// readers expect: one printable line, KDELAY_JSON one JSON value on one line.
std::vector<std::vector<std::string>> journal_entries(const std::vector<std::string>& n)
{
    const auto name = [&](size_t i) { return n[i % n.size()]; };
    std::vector<std::vector<std::string>> entries;
    auto writer = make_journal_writer([&](const JournalFields& fields) {
        std::vector<std::string> names;
        for (const auto& [field, value] : fields) {
            if (field == "KDELAY_JSON") {
                // JSON's own escaping: no line break, DEL left as it is.
                if (!nlohmann::json::accept(value) || value.find('\n') != std::string::npos)
                    std::abort();  // KDELAY_JSON not one JSON value on one line
            } else {
                kdfuzz::check_printable(value);
                if (value.find('\n') != std::string::npos)
                    std::abort();  // a field of two lines
            }
            names.push_back(field);
        }
        entries.push_back(std::move(names));
    });
    StallReport stall;
    stall.end_ns = 100;
    stall.process_name = name(1);
    stall.timeline_path = name(2);
    stall.profile_folded_path = name(3);
    Sample s;
    ThreadSample t;
    t.tid = 7;
    t.pid = 7;
    t.name = name(0);
    TimeBudget b;
    b.window_ns = 100;
    b.running_ns = 40;
    b.blocked = {{202, "futex", 60}};  // a syscall's name is libseccomp's, not the target's
    t.budget = b;
    s.threads = {t};
    stall.thread = delay_report(s).threads.at(0);
    writer->stall(stall);
    writer->report(delay_report(s));
    writer->marker(Marker{Marker::Kind::restart, {}, std::nullopt, std::nullopt, 5});
    writer->note(name(5));
    writer->warning(name(6));
    writer->lost(Loss{name(7), 1, 2, name(8)});
    return entries;
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
    kdfuzz::use_utf8();
    const std::vector<std::string> names = kdfuzz::words(data, size, 10);
    const std::string json = json_report(names);
    std::istringstream in(json);
    for (std::string line; std::getline(in, line);)
        if (!nlohmann::json::accept(line))
            std::abort();  // a line that is not one JSON value
    if (lines(json) != lines(json_report(std::vector<std::string>(names.size(), "x"))))
        std::abort();  // a name added or removed a line
    // An empty path is no file: the plain names are empty where these are.
    std::vector<std::string> plain;
    for (const std::string& n : names)
        plain.push_back(n.empty() ? "" : "x");
    if (journal_entries(names) != journal_entries(plain))
        std::abort();  // a name added or removed an entry or a field
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
