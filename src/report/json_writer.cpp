#include "report/json_writer.h"

#include <chrono>
#include <nlohmann/json.hpp>

#include "report/format.h"

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

// A waker or a CPU holder: a task names itself; an interrupt or "others"
// has only its kind.
template <class Party>
json who(const Party& p)
{
    const bool task = p.kind == "task";
    return {{"kind", p.kind},
            {"tid", task ? json(p.tid) : json(nullptr)},
            {"pid", task ? json(p.pid) : json(nullptr)},
            {"comm", task ? json(p.comm) : json(nullptr)}};
}

json budget(const std::optional<TimeBudget>& b)
{
    if (!b)
        return nullptr;
    json blocked = json::array();
    for (const auto& part : b->blocked)
        blocked.push_back({{"syscall", part.nr >= 0 ? json(part.name) : json(nullptr)},
                           {"nr", part.nr >= 0 ? json(part.nr) : json(nullptr)},
                           {"outside_syscalls", part.nr == TimeBudget::kOutsideSyscalls},
                           {"ns", part.ns}});
    json wakers = json::array();
    for (const auto& w : b->wakers) {
        json j = who(w);
        j["count"] = w.count;
        j["blocked_ns"] = w.blocked_ns;
        wakers.push_back(j);
    }
    json ready_by = json::array();
    for (const auto& h : b->ready_blame) {
        json j = who(h);
        j["ns"] = h.ns;
        ready_by.push_back(j);
    }
    return {{"wakers", wakers},
            {"ready_by", ready_by},
            {"window_ns", b->window_ns},       {"running_ns", b->running_ns}, {"irq_ns", b->irq_ns},
            {"ready_ns", b->ready_ns},         {"blocked_ns", b->blocked_ns}, {"blocked", blocked},
            {"stopped_ns", b->stopped_ns},     {"not_alive_ns", b->not_alive_ns},
            {"remainder_ns", b->remainder_ns}, {"source", b->from_proc ? "proc" : "ebpf"}};
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
            {"histograms", histograms},
            {"budget", budget(t.budget)}};
}

json per_cpu(const UpcallStats::PerCpu& calls)
{
    json j = json::object();
    for (const auto& [cpu, n] : calls)
        j[std::to_string(cpu)] = n;
    return j;
}

json upcalls(const UpcallStats& u)
{
    json errors = json::array();
    for (const auto& [err, calls] : u.failed) {
        errors.push_back({{"errno", err},
                          {"name", errno_name(err, "")},
                          {"count", UpcallStats::sum(calls)},
                          {"per_cpu", per_cpu(calls)}});
    }
    json j = {{"total", UpcallStats::sum(u.total)}, {"per_cpu", per_cpu(u.total)},
              {"results_known", u.results_known}};
    if (u.results_known) {
        j["succeeded"] = UpcallStats::sum(u.succeeded);
        j["succeeded_per_cpu"] = per_cpu(u.succeeded);
        j["errors"] = errors;
    }
    return j;
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
                          {"stack_lost", e.stack_lost},
                          {"waker", e.waker.empty() ? json(nullptr) : json(e.waker)}});
    json j{{"type", "sample"}, {"poll_nr", s.poll_nr}, {"threads", threads}, {"syscall_events", events}};
    j["upcalls"] = s.upcalls ? upcalls(*s.upcalls) : json(nullptr);
    line(j);
}

// Where text has its column header: tracing has begun.
void JsonWriter::bio_header(bool)
{
    line(json{{"type", "marker"}, {"marker", "start"},
              {"time_unix_ns", unix_ns(std::chrono::system_clock::now())}});
}

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
