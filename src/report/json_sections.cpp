#include "report/json_sections.h"

#include "report/format.h"

namespace kdelay {
namespace {

using nlohmann::json;

json histograms(const Histograms& h)
{
    json list = json::array();
    for (const auto& one : h.list) {
        json buckets = json::array();
        for (size_t slot = 0; slot < one.hist.slots.size(); ++slot)
            if (one.hist.slots[slot])
                buckets.push_back({{"low", Log2Hist::low(slot)}, {"high", Log2Hist::high(slot)},
                                   {"count", one.hist.slots[slot]}});
        list.push_back({{"kind", one.kind},
                        {"name", one.name},
                        {"id", one.id},
                        {"count", one.hist.total()},
                        {"p50_ns", one.hist.percentile(0.5)},
                        {"p90_ns", one.hist.percentile(0.9)},
                        {"p99_ns", one.hist.percentile(0.99)},
                        {"buckets", std::move(buckets)}});
    }
    return list;
}

// A waker or a CPU holder: a task names itself; an interrupt, "others" or
// an open wait has only its kind.
template <class Party>
json who(const Party& p)
{
    const bool task = p.kind == decltype(p.kind)::task;
    return {{"kind", kind_name(p.kind)},
            {"tid", task ? json(p.tid) : json(nullptr)},
            {"pid", task ? json(p.pid) : json(nullptr)},
            {"comm", task ? json(p.comm) : json(nullptr)}};
}

json profile(const std::optional<TimeBudget::Profile>& p)
{
    if (!p)
        return nullptr;
    json stacks = json::array();
    for (const auto& st : p->stacks)
        stacks.push_back({{"count", st.count}, {"cpu_ns", st.cpu_ns}, {"frames", st.frames}});
    json modules = json::object();
    for (const auto& [name, m] : p->modules)
        modules[name] = {{"path", m.path}, {"build_id", m.build_id}};
    return {{"hz", p->hz},
            {"period_ns", p->period_ns},
            {"samples", p->samples},
            {"lost", p->lost},
            {"stacks_lost", p->stacks_lost},
            {"sampled_ns", p->sampled_ns},
            {"stacks", stacks},
            {"modules", modules}};
}

json budget(const BudgetSection& section)
{
    if (!section.budget)
        return nullptr;
    const TimeBudget& b = *section.budget;
    json blocked = json::array();
    for (const auto& part : b.blocked)
        blocked.push_back({{"syscall", part.nr >= 0 ? json(part.name) : json(nullptr)},
                           {"nr", part.nr >= 0 ? json(part.nr) : json(nullptr)},
                           {"outside_syscalls", part.nr == TimeBudget::kOutsideSyscalls},
                           {"ns", part.ns}});
    json wakers = json::array();
    for (const auto& w : b.wakers) {
        json j = who(w);
        j["count"] = w.count;
        j["blocked_ns"] = w.blocked_ns;
        wakers.push_back(j);
    }
    json ready_by = json::array();
    for (const auto& h : b.ready_blame) {
        json j = who(h);
        j["ns"] = h.ns;
        ready_by.push_back(j);
    }
    json longest_waits = json::array();
    for (const auto& w : b.longest_waits)
        longest_waits.push_back({{"start_ns", w.start_ns},
                                 {"ns", w.ns},
                                 {"syscall", w.syscall},
                                 {"frames", w.frames},
                                 {"stack_lost", w.stack_lost}});
    return {{"wakers", wakers},
            {"ready_by", ready_by},
            {"longest_waits", longest_waits},
            {"profile", profile(b.profile)},
            {"window_ns", b.window_ns},       {"running_ns", b.running_ns}, {"irq_ns", b.irq_ns},
            {"ready_ns", b.ready_ns},         {"ready_before_window_ns", b.ready_before_ns},
            {"queued_ns", b.throttled_ns ? json(*b.queued_ns()) : json(nullptr)},
            {"throttled_ns", b.throttled_ns ? json(*b.throttled_ns) : json(nullptr)},
            {"throttled_by", b.throttled_by.empty() ? json(nullptr)
                                                    : json{{"cgroup", b.throttled_by}, {"cpu_max", b.throttled_by_cpu_max}}},
            {"steal_ns", b.steal_ns ? json(*b.steal_ns) : json(nullptr)},
            {"blocked_ns", b.blocked_ns},     {"blocked", blocked},
            {"stopped_ns", b.stopped_ns},     {"not_alive_ns", b.not_alive_ns},
            {"remainder_ns", b.remainder_ns}, {"source", b.source == TimeBudget::Source::proc       ? "proc"
                       : b.source == TimeBudget::Source::iterator ? "iterator"
                                                                  : "ebpf"}};
}

json per_cpu(const UpcallStats::PerCpu& calls)
{
    json j = json::object();
    for (const auto& [cpu, n] : calls)
        j[std::to_string(cpu)] = n;
    return j;
}

json upcalls(const UpcallSection& section)
{
    if (!section.upcalls)
        return nullptr;
    const UpcallStats& u = *section.upcalls;
    json errors = json::array();
    for (const auto& [err, calls] : u.failed)
        errors.push_back({{"errno", err},
                          {"name", errno_name(err, "")},
                          {"count", UpcallStats::sum(calls)},
                          {"per_cpu", per_cpu(calls)}});
    json j = {{"total", UpcallStats::sum(u.total)}, {"per_cpu", per_cpu(u.total)},
              {"results_known", u.results_known}};
    if (u.results_known) {
        j["succeeded"] = UpcallStats::sum(u.succeeded);
        j["succeeded_per_cpu"] = per_cpu(u.succeeded);
        j["errors"] = errors;
    }
    return j;
}

struct ToJson {
    std::pair<std::string, json> operator()(const Table& t) const { return {t.key, json_table(t)}; }
    std::pair<std::string, json> operator()(const Histograms& h) const { return {"histograms", histograms(h)}; }
    std::pair<std::string, json> operator()(const BudgetSection& b) const { return {"budget", budget(b)}; }
    std::pair<std::string, json> operator()(const UpcallSection& u) const { return {"upcalls", upcalls(u)}; }
    std::pair<std::string, json> operator()(const ProfileSection& p) const { return {"profile", profile(p.profile)}; }
};

}  // namespace

std::pair<std::string, nlohmann::json> json_section(const Section& section) { return std::visit(ToJson{}, section); }

}  // namespace kdelay
