#include "report/json_writer.h"

#include <chrono>
#include <nlohmann/json.hpp>

namespace kdelay {
namespace {

using nlohmann::json;

json stat(const Stat& s)
{
    return {{"count", s.count}, {"total_ns", s.total_ns}, {"min_ns", s.min_ns}, {"max_ns", s.max_ns}};
}

json optional_stat(const std::optional<Stat>& s) { return s ? stat(*s) : json(nullptr); }

int64_t unix_ns(std::chrono::system_clock::time_point t)
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

const char* kind_name(Marker::Kind k)
{
    switch (k) {
    case Marker::Kind::start: return "start";
    case Marker::Kind::stop: return "stop";
    case Marker::Kind::dump: return "dump";
    case Marker::Kind::dump_skipped: return "dump_skipped";
    }
    return "unknown";
}

json thread(const ThreadSample& t)
{
    json syscalls = json::array();
    for (const auto& s : t.syscalls) {
        json j = stat(s.stat);
        j["nr"] = s.nr;
        j["name"] = s.name;
        syscalls.push_back(j);
    }
    json hardirqs = json::array();
    for (const auto& irq : t.hardirqs) {
        json j = stat(irq.stat);
        j["name"] = irq.name;
        hardirqs.push_back(j);
    }
    json softirqs = json::array();
    for (const auto& irq : t.softirqs) {
        json j = stat(irq.stat);
        j["name"] = irq.name;
        j["vector"] = irq.vector;
        softirqs.push_back(j);
    }
    json blockio = json::array();
    for (const auto& io : t.blockio) {
        json j = stat(io.stat);
        j["disk"] = io.disk;
        j["op"] = std::string(1, io.op);
        j["bytes"] = io.bytes;
        blockio.push_back(j);
    }
    json histograms = json::array();
    for (const auto& h : t.histograms) {
        json buckets = json::array();
        for (size_t slot = 0; slot < h.hist.slots.size(); ++slot)
            if (h.hist.slots[slot])
                buckets.push_back({{"low", Log2Hist::low(slot)},
                                   {"high", Log2Hist::high(slot)},
                                   {"count", h.hist.slots[slot]}});
        histograms.push_back({{"kind", h.kind},
                              {"name", h.name},
                              {"id", h.id},
                              {"count", h.hist.total()},
                              {"p50_ns", h.hist.percentile(0.5)},
                              {"p90_ns", h.hist.percentile(0.9)},
                              {"p99_ns", h.hist.percentile(0.99)},
                              {"buckets", buckets}});
    }
    return {{"tid", t.tid},
            {"name", t.name},
            {"syscalls", syscalls},
            {"long_poll", optional_stat(t.long_poll)},
            {"run", optional_stat(t.run)},
            {"ready", optional_stat(t.ready)},
            {"stopped", optional_stat(t.stopped)},
            {"hardirqs", hardirqs},
            {"softirqs", softirqs},
            {"block_io", blockio},
            {"histograms", histograms}};
}

}  // namespace

template <class Json>
void JsonWriter::line(const Json& object)
{
    // Thread names and other kernel strings may hold invalid UTF-8: replace
    // it rather than fail.
    out_ << object.dump(-1, ' ', false, json::error_handler_t::replace) << "\n" << std::flush;
}

void JsonWriter::marker(const Marker& m)
{
    json j = {{"type", "marker"}, {"marker", kind_name(m.kind)}, {"time_unix_ns", unix_ns(m.when)}};
    if (m.trigger_ns)
        j["trigger_ns"] = *m.trigger_ns;
    if (m.delta_ns)
        j["delta_ns"] = *m.delta_ns;
    line(j);
}

void JsonWriter::sample(const Sample& s)
{
    json threads = json::array();
    for (const auto& t : s.threads)
        threads.push_back(thread(t));
    json events = json::array();
    for (const auto& e : s.events)
        events.push_back({{"entry_ns", e.entry_ns},
                          {"exit_ns", e.exit_ns},
                          {"delta_ns", e.exit_ns - e.entry_ns},
                          {"tid", e.tid},
                          {"comm", e.comm},
                          {"nr", e.nr},
                          {"syscall", e.name},
                          {"frames", e.frames},
                          {"stack_lost", e.stack_lost}});
    line(json{{"type", "sample"}, {"poll_nr", s.poll_nr}, {"threads", threads}, {"syscall_events", events}});
}

void JsonWriter::bio_header(bool) {}

void JsonWriter::bio_event(const BioEvent& e, bool)
{
    line(json{{"type", "bio"},
              {"time_s", e.time_s},
              {"comm", e.comm},
              {"pid", e.pid},
              {"disk", e.disk},
              {"op", std::string(1, e.op)},
              {"sector", e.sector},
              {"bytes", e.bytes},
              {"queue_ns", e.queue_ns},
              {"latency_ns", e.device_ns}});
}

void JsonWriter::bio_summary(const std::vector<BioSummaryRow>& rows)
{
    json out = json::array();
    for (const auto& r : rows)
        out.push_back({{"disk", r.disk},
                       {"op", std::string(1, r.op)},
                       {"count", r.count},
                       {"bytes", r.bytes},
                       {"total_latency_ns", r.total_device_ns},
                       {"max_latency_ns", r.max_device_ns}});
    line(json{{"type", "bio_summary"}, {"rows", out}});
}

void JsonWriter::note(const std::string& text) { line(json{{"type", "note"}, {"text", text}}); }

void JsonWriter::warning(const std::string& text) { line(json{{"type", "warning"}, {"text", text}}); }

}  // namespace kdelay
