#include "delay/report_sections.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "delay/section.h"
#include "report/format.h"
#include "report/histogram.h"

namespace kdelay {
namespace {

using nlohmann::json;

// The columns of a Stat, in the order kernel_delay.py prints them; min_ns
// and total_ns are in JSON whether or not the text shows them.
Column count_column(const char* title) { return Column{title, "count", 10}.left_title(); }
Column ns_column(const char* title, const char* key) { return Column{title, key, 16}.with_commas(); }
Column json_only(const char* key) { return Column{"", key}; }

std::vector<Cell> stat_cells(const Stat& s) { return {s.count, s.total_ns, s.min_ns, s.max_ns}; }

// A named row (syscall, IRQ): the name, its number, then the stat.
Table named_stats(const char* title, const char* key, const char* number_title, const char* number_key,
                  int number_width, int number_gap)
{
    Table t{title, key};
    t.columns = {Column{"NAME", "name", 20}.left().cut_at_width()};
    if (number_title)
        t.columns.push_back(Column{number_title, number_key, number_width}.with_gap(number_gap));
    t.columns.push_back(Column{"COUNT", "count", 10});
    t.columns.push_back(ns_column("TOTAL ns", "total_ns"));
    t.columns.push_back(ns_column("MAX ns", "max_ns"));
    t.columns.push_back(json_only("min_ns"));
    return t;
}

Row named_row(const std::string& name, std::optional<uint64_t> number, const Stat& s)
{
    Row r{{name}};
    if (number)
        r.cells.push_back(*number);
    for (Cell c : {Cell{s.count}, Cell{s.total_ns}, Cell{s.max_ns}, Cell{s.min_ns}})
        r.cells.push_back(std::move(c));
    return r;
}

Row total_row(const char* label, bool has_number, uint64_t count, uint64_t total)
{
    Row r{{std::string(label)}, true};
    if (has_number)
        r.cells.push_back(std::monostate{});
    r.cells.push_back(count);
    r.cells.push_back(total);
    return r;
}

Table syscalls(const ThreadSample& t, uint32_t poll_nr)
{
    Table s = named_stats("[SYSCALL STATISTICS]", "syscalls", "NUMBER", "nr", 6, 1);
    s.shown_empty = true;  // upstream prints it for every thread
    uint64_t count = 0, total = 0;
    for (const auto& sc : t.syscalls) {
        s.rows.push_back(named_row(sc.name, sc.nr, sc.stat));
        if (sc.nr != poll_nr) {
            count += sc.stat.count;
            total += sc.stat.total_ns;
        }
    }
    if (count > 0)
        s.rows.push_back(total_row("TOTAL( - poll):", true, count, total));
    return s;
}

Table irqs(const char* title, const char* key, const std::vector<IrqStat>& irqs, bool soft)
{
    Table s = soft ? named_stats(title, key, "VECT_NR", "vector", 7, 1) : named_stats(title, key, nullptr, nullptr, 0, 0);
    uint64_t count = 0, total = 0;
    for (const auto& irq : irqs) {
        s.rows.push_back(named_row(irq.name, soft ? std::optional<uint64_t>(irq.vector) : std::nullopt, irq.stat));
        count += irq.stat.count;
        total += irq.stat.total_ns;
    }
    if (!irqs.empty())
        s.rows.push_back(total_row("TOTAL:", soft, count, total));
    return s;
}

// A plug-in section's rows (delay/section.h): name and stat, the id in JSON.
Table section_rows(const ThreadSection& section, const ThreadSample& t)
{
    Table s = named_stats(section.title, section.on.name, nullptr, nullptr, 0, 0);
    s.columns.push_back(json_only(section.id_key));
    const auto rows = t.sections.find(section.on.name);
    if (rows == t.sections.end())
        return s;
    uint64_t count = 0, total = 0;
    for (const SectionRow& row : rows->second) {
        Row r = named_row(row.name, std::nullopt, row.stat);
        r.cells.push_back(uint64_t{row.id});
        s.rows.push_back(std::move(r));
        count += row.stat.count;
        total += row.stat.total_ns;
    }
    if (!rows->second.empty())
        s.rows.push_back(total_row("TOTAL:", false, count, total));
    return s;
}

// One Stat as one row: long poll, run, ready, stopped.
Table one_stat(const char* title, const char* key, const std::optional<Stat>& st, std::vector<Column> columns,
               std::vector<Cell> (*cells)(const Stat&))
{
    Table s{title, key, std::move(columns)};
    s.one_row = true;
    if (st)
        s.rows.push_back(Row{cells(*st)});
    return s;
}

Table long_poll(const std::optional<Stat>& st)
{
    return one_stat("[LONG POLL STATISTICS]", "long_poll", st,
                    {count_column("COUNT"), ns_column("AVERAGE ns", ""), ns_column("MIN ns", "min_ns"),
                     ns_column("MAX ns", "max_ns"), json_only("total_ns")},
                    [](const Stat& s) -> std::vector<Cell> {
                        return {s.count, s.total_ns / s.count, s.min_ns, s.max_ns, s.total_ns};
                    });
}

Table run(const std::optional<Stat>& st)
{
    return one_stat("[THREAD RUN STATISTICS]", "run", st,
                    {count_column("SCHED_CNT"), ns_column("TOTAL ns", "total_ns"), ns_column("MIN ns", "min_ns"),
                     ns_column("MAX ns", "max_ns")},
                    stat_cells);
}

Table count_total_max(const char* title, const char* key, const char* count_title, const std::optional<Stat>& st)
{
    return one_stat(title, key, st,
                    {count_column(count_title), ns_column("TOTAL ns", "total_ns"), ns_column("MAX ns", "max_ns"),
                     json_only("min_ns")},
                    [](const Stat& s) -> std::vector<Cell> { return {s.count, s.total_ns, s.max_ns, s.min_ns}; });
}

Table block_io(const std::vector<BlockIoStat>& ios)
{
    Table s{"[BLOCK I/O STATISTICS]", "block_io"};
    s.columns = {Column{"DISK", "disk", 10}.left().cut_at_width(),
                 Column{"T", "op", 1}.left().with_gap(1),
                 Column{"COUNT", "count", 10},
                 ns_column("BYTES", "bytes"),
                 ns_column("TOTAL ns", "total_ns"),
                 ns_column("MAX ns", "max_ns"),
                 json_only("min_ns")};
    for (const auto& io : ios)
        s.rows.push_back(Row{{io.disk, std::string(1, io.op), io.stat.count, io.bytes, io.stat.total_ns,
                              io.stat.max_ns, io.stat.min_ns}});
    return s;
}

// A section that JSON prints as one document under key, beside the text
// tables it has instead; null without the data.
template <class T>
Table json_document(const char* key, const std::optional<T>& data, json (*to_json)(const T&))
{
    Table t{"", key};
    t.shown = Table::Shown::json;
    t.one_row = true;
    if (data)
        t.json_document = [&data, to_json] { return to_json(*data); };
    return t;
}

json histograms_json(const std::vector<HistogramSample>& all)
{
    json list = json::array();
    for (const auto& h : all) {
        json buckets = json::array();
        for (size_t slot = 0; slot < h.hist.slots.size(); ++slot)
            if (h.hist.slots[slot])
                buckets.push_back({{"low", Log2Hist::low(slot)}, {"high", Log2Hist::high(slot)},
                                   {"count", h.hist.slots[slot]}});
        list.push_back({{"kind", h.kind},
                        {"name", h.name},
                        {"id", h.id},
                        {"count", h.hist.total()},
                        {"p50_ns", h.hist.percentile(0.5)},
                        {"p90_ns", h.hist.percentile(0.9)},
                        {"p99_ns", h.hist.percentile(0.99)},
                        {"buckets", std::move(buckets)}});
    }
    return list;
}

// Text: one section per histogram; JSON: one list of them.
void histograms(const std::vector<HistogramSample>& all, std::vector<Table>& out)
{
    for (const auto& h : all) {
        Table text{"[LATENCY HISTOGRAM]"};
        text.shown = Table::Shown::text;
        const bool numbered = h.kind == "syscall" || h.kind == "blocked";
        const std::string what =
            h.kind + (h.name.empty() ? "" : " " + h.name) + (numbered ? " (" + std::to_string(h.id) + ")" : "");
        text.text_lines.push_back(fmt::format("{}: count {}, p50 {} ns, p90 {} ns, p99 {} ns", what,
                                              with_commas(h.hist.total()), with_commas(h.hist.percentile(0.5)),
                                              with_commas(h.hist.percentile(0.9)),
                                              with_commas(h.hist.percentile(0.99))));
        for (auto& line : render_log2_hist(h.hist, "ns"))
            text.text_lines.push_back(std::move(line));
        out.push_back(std::move(text));
    }
    Table list{"", "histograms"};
    list.shown = Table::Shown::json;
    list.json_document = [&all] { return histograms_json(all); };
    out.push_back(std::move(list));
}

Table budget_text(const TimeBudget& b)
{
    Table s{"[THREAD TIME BUDGET]"};
    s.shown = Table::Shown::text;
    s.columns = {Column{"STATE", "", 24}.left().cut_at_width(), Column{"TIME ns", "", 16}.with_commas(),
                 Column{"SHARE", "", 7}.fixed(1).with_suffix("%")};
    auto row = [&](const std::string& name, int64_t ns) {
        const double share = b.window_ns ? 100.0 * static_cast<double>(ns) / static_cast<double>(b.window_ns) : 0.0;
        s.rows.push_back(Row{{name, ns, share}});
    };
    auto i64 = [](uint64_t v) { return static_cast<int64_t>(v); };
    row("RUNNING", i64(b.running_ns));
    if (b.irq_ns)
        row("  in IRQs", i64(b.irq_ns));
    row("READY", i64(b.ready_ns));
    row("BLOCKED", i64(b.blocked_ns));
    for (const auto& part : b.blocked)
        row("  " + part.name, i64(part.ns));
    if (b.stopped_ns)
        row("STOPPED", i64(b.stopped_ns));
    if (b.not_alive_ns)
        row("NOT ALIVE", i64(b.not_alive_ns));
    row("REMAINDER", b.remainder_ns);
    row("WINDOW", i64(b.window_ns));
    if (b.from_proc)
        s.text_lines.push_back("(no event in the window: the state /proc shows)");
    return s;
}

// The 5 tasks that held the CPU longest while the thread waited for it,
// then interrupts, then the rest as "others".
Table ready_blame_text(const std::vector<TimeBudget::Holder>& all)
{
    Table s{"[THREAD READY BLAME]"};
    s.shown = Table::Shown::text;
    s.columns = {Column{"CPU HELD BY", "", 24}.left().cut_at_width(), Column{"TIME ns", "", 16}.with_commas()};
    uint64_t irq = 0, others = 0;
    size_t tasks = 0;
    for (const auto& h : all) {
        if (h.kind == "irq")
            irq += h.ns;
        else if (h.kind != "task" || ++tasks > 5)
            others += h.ns;
        else
            s.rows.push_back(Row{{h.tid == 0 ? "[idle]" : task_label(h.comm, h.pid, h.tid), h.ns}});
    }
    if (irq)
        s.rows.push_back(Row{{std::string("[hard and soft IRQs]"), irq}});
    if (others)
        s.rows.push_back(Row{{std::string("others"), others}});
    return s;
}

// The top 5 wakers by blocked time ended and the top 5 by count; the rest
// in one line.
Table wakers_text(const std::vector<TimeBudget::Waker>& all)
{
    Table s{"[THREAD WAKERS]"};
    s.shown = Table::Shown::text;
    s.columns = {Column{"WOKEN BY", "", 24}.left().cut_at_width(), Column{"COUNT", "", 10},
                 Column{"BLOCKED ns", "", 16}.with_commas()};
    std::vector<size_t> by_count(all.size());
    for (size_t i = 0; i < all.size(); ++i)
        by_count[i] = i;
    std::stable_sort(by_count.begin(), by_count.end(), [&](size_t a, size_t b) { return all[a].count > all[b].count; });
    std::vector<bool> shown(all.size());
    for (size_t i = 0; i < all.size() && i < 5; ++i)
        shown[i] = shown[by_count[i]] = true;
    uint64_t other_count = 0, other_ns = 0;
    for (size_t i = 0; i < all.size(); ++i) {
        const auto& w = all[i];
        if (!shown[i]) {
            other_count += w.count;
            other_ns += w.blocked_ns;
            continue;
        }
        s.rows.push_back(Row{{waker_label(w.kind, w.comm, w.pid, w.tid), w.count, w.blocked_ns}});
    }
    if (other_count)
        s.rows.push_back(Row{{std::string("others"), other_count, other_ns}});
    return s;
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

json budget_json(const TimeBudget& b)
{
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
    return {{"wakers", wakers},
            {"ready_by", ready_by},
            {"window_ns", b.window_ns},       {"running_ns", b.running_ns}, {"irq_ns", b.irq_ns},
            {"ready_ns", b.ready_ns},         {"blocked_ns", b.blocked_ns}, {"blocked", blocked},
            {"stopped_ns", b.stopped_ns},     {"not_alive_ns", b.not_alive_ns},
            {"remainder_ns", b.remainder_ns}, {"source", b.from_proc ? "proc" : "ebpf"}};
}

// Text: the budget, READY blame and wakers sections; JSON: one object (null
// without a budget).
void budget(const std::optional<TimeBudget>& b, std::vector<Table>& out)
{
    if (b) {
        out.push_back(budget_text(*b));
        if (!b->ready_blame.empty())
            out.push_back(ready_blame_text(b->ready_blame));
        if (!b->wakers.empty())
            out.push_back(wakers_text(b->wakers));
    }
    out.push_back(json_document("budget", b, budget_json));
}

// " [0: 12, 1: 3]": only CPUs that made a call.
std::string per_cpu_list(const UpcallStats::PerCpu& per_cpu)
{
    std::vector<std::string> parts;
    for (const auto& [cpu, calls] : per_cpu)
        if (calls > 0)
            parts.push_back(fmt::format("{}: {}", cpu, calls));
    return fmt::format("{} [{}]", UpcallStats::sum(per_cpu), fmt::join(parts, ", "));
}

json per_cpu_json(const UpcallStats::PerCpu& calls)
{
    json j = json::object();
    for (const auto& [cpu, n] : calls)
        j[std::to_string(cpu)] = n;
    return j;
}

json upcalls_json(const UpcallStats& u)
{
    json errors = json::array();
    for (const auto& [err, calls] : u.failed)
        errors.push_back({{"errno", err},
                          {"name", errno_name(err, "")},
                          {"count", UpcallStats::sum(calls)},
                          {"per_cpu", per_cpu_json(calls)}});
    json j = {{"total", UpcallStats::sum(u.total)}, {"per_cpu", per_cpu_json(u.total)},
              {"results_known", u.results_known}};
    if (u.results_known) {
        j["succeeded"] = UpcallStats::sum(u.succeeded);
        j["succeeded_per_cpu"] = per_cpu_json(u.succeeded);
        j["errors"] = errors;
    }
    return j;
}

// Text: upstream's lines, only when an upcall was seen; JSON: the counts
// whenever they were taken, else null.
void upcalls(const std::optional<UpcallStats>& u, std::vector<Table>& out)
{
    if (u && UpcallStats::sum(u->total) > 0) {
        Table s{"# UPCALL STATISTICS (TOTAL [CPU_ID: N_UPCALLS_PER_CPU, ...]):"};
        s.shown = Table::Shown::text;
        s.shown_empty = true;
        s.indent = 2;
        s.text_lines.push_back("Total upcalls       : " + per_cpu_list(u->total));
        if (!u->failed.empty()) {
            s.text_lines.push_back("Successfull upcalls : " + per_cpu_list(u->succeeded));  // upstream's spelling
            UpcallStats::PerCpu failed;
            for (const auto& [err, per_cpu] : u->failed)
                for (const auto& [cpu, calls] : per_cpu)
                    failed[cpu] += calls;
            s.text_lines.push_back("Failed upcalls      : " + per_cpu_list(failed));
            for (const auto& [err, per_cpu] : u->failed)
                s.text_lines.push_back(fmt::format("  {:>3}, {:13}: {}", err, errno_name(err, "E?"), per_cpu_list(per_cpu)));
        }
        out.push_back(std::move(s));
    }
    out.push_back(json_document("upcalls", u, upcalls_json));
}

Table syscall_events(const std::vector<SyscallEvent>& events)
{
    Table s{"# SYSCALL EVENTS:", "syscall_events"};
    s.indent = 2;
    s.rule = {19, 19, 10, 16, 10, 16};
    s.columns = {Column{"ENTRY (ns)", "entry_ns", 19},
                 Column{"EXIT (ns)", "exit_ns", 19}.with_gap(1),
                 Column{"TID", "tid", 10}.with_gap(1),
                 Column{"COMM", "comm", 16}.left().with_gap(1),
                 Column{"DELTA (us)", "", 10}.with_commas().with_gap(1),
                 Column{"SYSCALL", "syscall"}.left(),
                 json_only("delta_ns"),
                 json_only("nr"),
                 json_only("frames"),
                 json_only("stack_lost"),
                 json_only("waker")};
    for (const auto& e : events) {
        Row r{{e.entry_ns, e.exit_ns, uint64_t{e.tid}, e.comm, (e.exit_ns - e.entry_ns) / 1000, e.name,
               e.exit_ns - e.entry_ns, uint64_t{e.nr}, e.frames, e.stack_lost,
               e.waker.empty() ? Cell{} : Cell{e.waker}}};
        if (!e.waker.empty())
            r.text_after.push_back("          woken by " + e.waker);
        for (const auto& frame : e.frames)
            r.text_after.push_back("          " + frame);
        s.rows.push_back(std::move(r));
    }
    return s;
}

// The per-thread sections, in the order the text prints them.
std::vector<Table> thread_sections(const ThreadSample& t, uint32_t poll_nr)
{
    std::vector<Table> s;
    s.reserve(13 + t.histograms.size());
    s.push_back(syscalls(t, poll_nr));
    s.push_back(long_poll(t.long_poll));
    s.push_back(run(t.run));
    s.push_back(count_total_max("[THREAD READY STATISTICS]", "ready", "SCHED_CNT", t.ready));
    s.push_back(count_total_max("[THREAD STOPPED STATISTICS]", "stopped", "STOP_CNT", t.stopped));
    s.push_back(irqs("[HARD IRQ STATISTICS]", "hardirqs", t.hardirqs, false));
    s.push_back(irqs("[SOFT IRQ STATISTICS]", "softirqs", t.softirqs, true));
    for (const RegisteredSection& section : registered_sections())
        s.push_back(section_rows(*section.def, t));
    s.push_back(block_io(t.blockio));
    histograms(t.histograms, s);
    budget(t.budget, s);
    return s;
}

}  // namespace

Report delay_report(const Sample& sample)
{
    Report r;
    r.fields.emplace_back("poll_nr", uint64_t{sample.poll_nr});
    for (const auto& t : sample.threads)
        r.threads.push_back(ThreadSections{t.tid, t.name, thread_sections(t, sample.poll_nr)});
    upcalls(sample.upcalls, r.sample_sections);
    r.sample_sections.push_back(syscall_events(sample.events));
    return r;
}

}  // namespace kdelay
