// The journal as a writer: each stall, sample, marker, note or row one entry,
// with a one-line MESSAGE, the numbers as fields and the whole JSON object
// (docs/json.md) in KDELAY_JSON, so that `journalctl -o json` carries
// everything a log shipper needs.
#include <algorithm>
#include <functional>
#include <sstream>
#include <variant>

#include "report/format.h"
#include "report/writers.h"
#include "sys/systemd.h"

namespace kdelay {
namespace {

// journalctl MESSAGE_ID=... finds every stall (sd-id128 made for kdelay).
constexpr const char* kStallMessageId = "8a0b5d3c7e2f4e61b9c4d2a7f0e1c356";

// The priorities of syslog(3): a stall is what Open vSwitch logs at WARN.
constexpr const char* kWarning = "4";
constexpr const char* kNotice = "5";
constexpr const char* kInfo = "6";

const TimeBudget* budget_of(const ThreadSections& t)
{
    for (const Section& s : t.sections)
        if (const auto* b = std::get_if<BudgetSection>(&s); b && b->budget)
            return &*b->budget;
    return nullptr;
}

std::string ms(uint64_t ns) { return with_commas((ns + 500000) / 1000000) + " ms"; }

// "running 800 ms, ready 300 ms, blocked in poll 150 ms": the largest parts.
std::string largest_parts(const TimeBudget& b)
{
    std::vector<std::pair<uint64_t, std::string>> parts = {{b.running_ns, "running"}, {b.ready_ns, "ready"},
                                                           {b.stopped_ns, "stopped"}};
    for (const TimeBudget::Blocked& x : b.blocked)
        parts.emplace_back(x.ns, x.nr == TimeBudget::kOutsideSyscalls ? "blocked outside syscalls"
                                                                       : "blocked in " + x.name);
    std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& c) { return a.first > c.first; });
    std::string text;
    for (size_t i = 0; i < parts.size() && i < 3 && parts[i].first; ++i)
        text += (i ? ", " : "") + parts[i].second + " " + ms(parts[i].first);
    return text;
}

class JournalWriter : public ReportWriter {
public:
    explicit JournalWriter(JournalSend send)
        : send_(std::move(send)), json_(make_json_writer(json_out_)), text_(make_text_writer(text_out_))
    {
    }

    void marker(const Marker& m) override
    {
        JournalFields f = {{"MESSAGE", text_of([&] { text_->marker(m); })},
                           {"PRIORITY", m.kind == Marker::Kind::restart ? kNotice : kInfo}};
        if (m.cgroup_id)
            f.emplace_back("KDELAY_CGROUP_ID", std::to_string(*m.cgroup_id));
        send(std::move(f), [&] { json_->marker(m); });
    }

    void report(const Report& r) override
    {
        send({{"MESSAGE", "sample of " + std::to_string(r.threads.size()) + " threads"}, {"PRIORITY", kInfo}},
             [&] { json_->report(r); });
    }

    void stall(const StallReport& s) override
    {
        const ThreadSections& t = s.thread;
        const uint64_t ns = s.end_ns > s.start_ns ? s.end_ns - s.start_ns : 0;
        std::string message = "stall of " + ms(ns) + " in thread " + printable(t.name) + " (tid " +
                              std::to_string(t.tid) + ") of " +
                              (s.process_name.empty() ? "process" : printable(s.process_name)) + " (pid " +
                              std::to_string(t.pid) + ")";
        JournalFields f = {{"MESSAGE_ID", kStallMessageId},
                           {"PRIORITY", kWarning},
                           {"KDELAY_STALL_NS", std::to_string(ns)},
                           {"KDELAY_START_NS", std::to_string(s.start_ns)},
                           {"KDELAY_TID", std::to_string(t.tid)},
                           {"KDELAY_PID", std::to_string(t.pid)},
                           {"KDELAY_THREAD", printable(t.name)},
                           {"KDELAY_THREAD_KIND", printable(name_without_digits(t.name))},
                           {"KDELAY_PROCESS", printable(s.process_name)},
                           {"KDELAY_VOLUNTARY_SWITCHES", std::to_string(s.voluntary_switches)},
                           {"KDELAY_INVOLUNTARY_SWITCHES", std::to_string(s.involuntary_switches)}};
        if (!s.timeline_path.empty())
            f.emplace_back("KDELAY_TIMELINE", printable(s.timeline_path));
        if (!s.profile_folded_path.empty())
            f.emplace_back("KDELAY_PROFILE_FOLDED", printable(s.profile_folded_path));
        if (const TimeBudget* b = budget_of(t)) {
            if (const std::string parts = largest_parts(*b); !parts.empty())
                message += ": " + parts;
            f.emplace_back("KDELAY_RUNNING_NS", std::to_string(b->running_ns));
            f.emplace_back("KDELAY_IRQ_NS", std::to_string(b->irq_ns));
            f.emplace_back("KDELAY_READY_NS", std::to_string(b->ready_ns));
            f.emplace_back("KDELAY_BLOCKED_NS", std::to_string(b->blocked_ns));
            f.emplace_back("KDELAY_STOPPED_NS", std::to_string(b->stopped_ns));
        }
        f.emplace_back("MESSAGE", message);
        send(std::move(f), [&] { json_->stall(s); });
    }

    void rows_begin(const Table&) override {}
    void row(const Table& columns, const Row& r) override
    {
        send({{"PRIORITY", kInfo}}, [&] { json_->row(columns, r); });
    }
    void table(const Table& t) override
    {
        send({{"MESSAGE", text_of([&] { text_->table(t); })}, {"PRIORITY", kInfo}}, [&] { json_->table(t); });
    }
    void note(const std::string& text) override { send({{"MESSAGE", printable(text)}, {"PRIORITY", kInfo}}, {}); }
    void warning(const std::string& text) override
    {
        send({{"MESSAGE", printable(text)}, {"PRIORITY", kWarning}}, {});
    }
    void lost(const Loss& loss) override
    {
        send({{"MESSAGE", "lost: " + printable(loss.text)},
              {"PRIORITY", kWarning},
              {"KDELAY_LOST", printable(loss.what)},
              {"KDELAY_LOST_COUNT", std::to_string(loss.count)},
              {"KDELAY_LOST_TOTAL", std::to_string(loss.total)}},
             [&] { json_->lost(loss); });
    }

private:
    template <class Write>
    std::string text_of(Write write)
    {
        text_out_.str("");
        write();
        const std::string text = text_out_.str();
        const size_t first = text.find_first_not_of("\n# ");
        const size_t last = text.find_last_not_of('\n');
        return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
    }

    // One entry; the JSON object the JSON writer makes of it, when one.
    void send(JournalFields fields, const std::function<void()>& write_json)
    {
        fields.emplace_back("SYSLOG_IDENTIFIER", "kdelay");
        if (write_json) {
            json_out_.str("");
            write_json();
            std::string line = json_out_.str();
            while (!line.empty() && line.back() == '\n')
                line.pop_back();
            if (!line.empty()) {
                fields.emplace_back("KDELAY_JSON", line);
                if (std::none_of(fields.begin(), fields.end(), [](const auto& f) { return f.first == "MESSAGE"; }))
                    fields.emplace_back("MESSAGE", line);
            }
        }
        send_(fields);
    }

    JournalSend send_;
    std::ostringstream json_out_, text_out_;
    std::unique_ptr<ReportWriter> json_, text_;
};

}  // namespace

std::unique_ptr<ReportWriter> make_journal_writer(JournalSend send)
{
    return std::make_unique<JournalWriter>(std::move(send));
}

}  // namespace kdelay
