#include <chrono>
#include <nlohmann/json.hpp>

#include "report/json_sections.h"
#include "report/writers.h"

namespace kdelay {
namespace {

using nlohmann::json;

int64_t unix_ns(std::chrono::system_clock::time_point t)
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

const char* kind_name(Marker::Kind k)
{
    switch (k) {
    case Marker::Kind::start:
    case Marker::Kind::watch: return "start";
    case Marker::Kind::stop:
    case Marker::Kind::watch_end: return "stop";
    case Marker::Kind::dump: return "dump";
    case Marker::Kind::dump_skipped: return "dump_skipped";
    case Marker::Kind::restart: return "restart";
    }
    return "unknown";
}

// A section goes into its object under its key.
void add_sections(json& object, const std::vector<Section>& sections)
{
    for (const auto& s : sections) {
        auto [key, value] = json_section(s);
        object[key] = std::move(value);
    }
}

class JsonWriter : public ReportWriter {
public:
    explicit JsonWriter(std::ostream& out) : out_(out) {}

    void marker(const Marker& m) override
    {
        json j = {{"type", "marker"}, {"marker", kind_name(m.kind)}, {"time_unix_ns", unix_ns(m.when)}};
        if (m.trigger_ns)
            j["trigger_ns"] = *m.trigger_ns;
        if (m.delta_ns)
            j["delta_ns"] = *m.delta_ns;
        if (m.cgroup_id)
            j["cgroup_id"] = *m.cgroup_id;
        line(j);
    }

    void report(const Report& report) override
    {
        json threads = json::array();
        for (const auto& t : report.threads)
            threads.push_back(thread_json(t));
        json j{{"type", "sample"}, {"threads", std::move(threads)}};
        for (const auto& [key, value] : report.fields)
            j[key] = cell_json(value);
        add_sections(j, report.sample_sections);
        line(j);
    }

    void stall(const StallReport& s) override
    {
        line(json{{"type", "stall"},
                  {"start_ns", s.start_ns},
                  {"end_ns", s.end_ns},
                  {"start_unix_ns", unix_ns(s.start_wall)},
                  {"voluntary_switches", s.voluntary_switches},
                  {"involuntary_switches", s.involuntary_switches},
                  {"timeline", s.timeline_path.empty() ? json(nullptr) : json(s.timeline_path)},
                  {"timeline_events_not_kept", s.timeline_not_kept},
                  {"profile_folded", s.profile_folded_path.empty() ? json(nullptr) : json(s.profile_folded_path)},
                  {"thread", thread_json(s.thread)}});
    }

    // Where text has its column header: tracing has begun.
    void rows_begin(const Table&) override
    {
        line(json{{"type", "marker"}, {"marker", "start"}, {"time_unix_ns", unix_ns(std::chrono::system_clock::now())}});
    }

    void row(const Table& t, const Row& r) override
    {
        json j = json_row(t, r);
        j["type"] = t.key;
        line(j);
    }

    void table(const Table& t) override { line(json{{"type", t.key}, {"rows", json_table(t)}}); }
    void note(const std::string& text) override { line(json{{"type", "note"}, {"text", text}}); }
    void warning(const std::string& text) override { line(json{{"type", "warning"}, {"text", text}}); }
    void lost(const Loss& l) override
    {
        line(json{{"type", "lost"}, {"what", l.what}, {"count", l.count}, {"total", l.total}, {"text", l.text}});
    }

private:
    static json thread_json(const ThreadSections& t)
    {
        json j = {{"tid", t.tid}, {"pid", t.pid ? json(t.pid) : json(nullptr)}, {"name", t.name}};
        add_sections(j, t.sections);
        return j;
    }

    void line(const json& object)
    {
        // Thread names and other kernel strings may hold invalid UTF-8:
        // replace it rather than fail.
        out_ << object.dump(-1, ' ', false, json::error_handler_t::replace) << "\n" << std::flush;
    }

    std::ostream& out_;
};

}  // namespace

std::unique_ptr<ReportWriter> make_json_writer(std::ostream& out) { return std::make_unique<JsonWriter>(out); }

}  // namespace kdelay
