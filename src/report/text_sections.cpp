#include "report/text_sections.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/format.h"

namespace kdelay {
namespace {

// One table per histogram: its summary line, then BCC's layout.
std::vector<Table> histograms(const Histograms& h)
{
    std::vector<Table> out;
    for (const auto& one : h.list) {
        Table text{"[LATENCY HISTOGRAM]"};
        const std::string what = one.kind + (one.name.empty() ? "" : " " + one.name) +
                                 (one.id_named ? " (" + std::to_string(one.id) + ")" : "");
        text.text_lines.push_back(fmt::format("{}: count {}, p50 {} ns, p90 {} ns, p99 {} ns", what,
                                              with_commas(one.hist.total()), with_commas(one.hist.percentile(0.5)),
                                              with_commas(one.hist.percentile(0.9)),
                                              with_commas(one.hist.percentile(0.99))));
        for (auto& line : render_log2_hist(one.hist, "ns"))
            text.text_lines.push_back(std::move(line));
        out.push_back(std::move(text));
    }
    return out;
}

Table budget_states(const TimeBudget& b)
{
    Table s{"[THREAD TIME BUDGET]"};
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
    if (b.steal_ns && *b.steal_ns)
        row("  stolen by the host", i64(*b.steal_ns));
    row("READY", i64(b.ready_ns));
    if (b.throttled_ns && *b.throttled_ns) {
        row("  queued", i64(*b.queued_ns()));
        row("  throttled", i64(*b.throttled_ns));
    }
    row("BLOCKED", i64(b.blocked_ns));
    for (const auto& part : b.blocked)
        row("  " + part.name, i64(part.ns));
    if (b.stopped_ns)
        row("STOPPED", i64(b.stopped_ns));
    if (b.not_alive_ns)
        row("NOT ALIVE", i64(b.not_alive_ns));
    row("REMAINDER", b.remainder_ns);
    row("WINDOW", i64(b.window_ns));
    if (b.source == TimeBudget::Source::iterator)
        s.text_lines.push_back("(no event in the window: the state the kernel showed when it closed)");
    if (b.source == TimeBudget::Source::proc)
        s.text_lines.push_back("(no event in the window: the state /proc shows; without a task iterator "
                               "(Linux 5.8) RUNNING is also a wait for a CPU)");
    if (b.throttled_ns && *b.throttled_ns && !b.throttled_by.empty())
        s.text_lines.push_back(fmt::format("(throttled by the CPU limit of cgroup {}: cpu.max {})", b.throttled_by,
                                           b.throttled_by_cpu_max));
    if (!b.throttled_ns && b.ready_ns)
        s.text_lines.push_back("(READY's part throttled by a cgroup's CPU limit: not measured on this kernel)");
    if (b.ready_before_ns)
        s.text_lines.push_back(fmt::format("(READY when the window opened, after {} ns of waiting before it)",
                                           with_commas(b.ready_before_ns)));
    return s;
}

// The 5 tasks that held the CPU longest while the thread waited for it,
// then interrupts, then the rest as "others", then a wait still open.
Table ready_blame(const std::vector<TimeBudget::Holder>& all)
{
    Table s{"[THREAD READY BLAME]"};
    s.columns = {Column{"CPU HELD BY", "", 24}.left().cut_at_width(), Column{"TIME ns", "", 16}.with_commas()};
    uint64_t irq = 0, others = 0, open = 0;
    size_t tasks = 0;
    for (const auto& h : all) {
        if (h.kind == HolderKind::irq)
            irq += h.ns;
        else if (h.kind == HolderKind::open)
            open += h.ns;
        else if (h.kind != HolderKind::task || ++tasks > 5)
            others += h.ns;
        else
            s.rows.push_back(Row{{h.tid == 0 ? "[idle]" : task_label(h.comm, h.pid, h.tid), h.ns}});
    }
    if (irq)
        s.rows.push_back(Row{{std::string("[hard and soft IRQs]"), irq}});
    if (others)
        s.rows.push_back(Row{{std::string("others"), others}});
    if (open)
        s.rows.push_back(Row{{std::string("[waiting at the end]"), open}});
    return s;
}

// The top 5 wakers by blocked time ended and the top 5 by count; the rest
// in one line.
Table wakers(const std::vector<TimeBudget::Waker>& all)
{
    Table s{"[THREAD WAKERS]"};
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

// --wait-stacks: each long wait, then its stack, innermost first.
Table longest_waits(const std::vector<TimeBudget::LongWait>& waits)
{
    Table s{"[LONGEST WAITS, WITH THE STACKS WHERE THEY BEGAN]", "",
            {Column{"MSECS", "", 12}.fixed(3, 1e6), Column{"BLOCKED IN", "", 0}.left()}};
    for (const auto& w : waits) {
        Row r{{w.ns, w.syscall}};
        for (const auto& frame : w.frames)
            r.text_after.push_back(std::string(42, ' ') + frame);
        if (w.stack_lost)
            r.text_after.push_back(std::string(42, ' ') + "[stack lost: stack_traces had no slot for it]");
        s.rows.push_back(std::move(r));
    }
    return s;
}

// --profile: the stacks the thread ran in most, each under its samples and
// its share of their CPU time (of RUNNING), outermost frame first.
Table where_it_ran(const TimeBudget::Profile& p)
{
    constexpr size_t kShown = 5;
    Table s{"[WHERE IT RAN]", "",
            {Column{"SAMPLES", "", 12}.with_commas(), Column{"% RUNNING", "", 10}.fixed(1).with_suffix("%"),
             Column{"STACK, OUTERMOST FIRST", "", 0}.left().with_gap(4)}};
    s.shown_empty = true;
    const auto share = [&](uint64_t ns) { return 100.0 * double(ns) / double(p.sampled_ns ? p.sampled_ns : 1); };
    uint64_t other = 0, other_ns = 0;
    for (size_t i = 0; i < p.stacks.size(); ++i) {
        const auto& stack = p.stacks[i];
        if (i >= kShown) {
            other += stack.count;
            other_ns += stack.cpu_ns;
            continue;
        }
        Row r{{stack.count, share(stack.cpu_ns),
               stack.frames.empty() ? std::string("[stack lost: stack_traces had no slot for it]") : stack.frames.front()}};
        for (size_t f = 1; f < stack.frames.size(); ++f)
            r.text_after.push_back(std::string(30, ' ') + stack.frames[f]);
        s.rows.push_back(std::move(r));
    }
    if (other)
        s.rows.push_back(Row{{other, share(other_ns), fmt::format("{} other stacks", p.stacks.size() - kShown)}});
    s.text_lines.push_back(fmt::format("{} samples at {} Hz, one each {:.3f} ms of CPU time, for {:.3f} ms{}",
                                       with_commas(p.samples), p.hz, double(p.period_ns) / 1e6,
                                       double(p.sampled_ns) / 1e6,
                                       p.lost ? fmt::format("; {} lost, past the kernel's store of the interval",
                                                            with_commas(p.lost))
                                              : ""));
    return s;
}

// The budget's states, then READY blame and wakers when there are any.
std::vector<Table> budget(const BudgetSection& section)
{
    std::vector<Table> out;
    if (!section.budget)
        return out;
    const TimeBudget& b = *section.budget;
    out.push_back(budget_states(b));
    if (!b.ready_blame.empty())
        out.push_back(ready_blame(b.ready_blame));
    if (!b.wakers.empty())
        out.push_back(wakers(b.wakers));
    if (!b.longest_waits.empty())
        out.push_back(longest_waits(b.longest_waits));
    if (b.profile)
        out.push_back(where_it_ran(*b.profile));
    return out;
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

// kernel_delay.py's lines, only when an upcall was seen.
std::vector<Table> upcalls(const UpcallSection& section)
{
    const auto& u = section.upcalls;
    if (!u || UpcallStats::sum(u->total) == 0)
        return {};
    Table s{"# UPCALL STATISTICS (TOTAL [CPU_ID: N_UPCALLS_PER_CPU, ...]):"};
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
    return {std::move(s)};
}

struct ToText {
    const std::function<void(const Table&)>& print;

    void operator()(const Table& t) const { print(t); }
    void operator()(const Histograms& h) const { each(histograms(h)); }
    void operator()(const BudgetSection& b) const { each(budget(b)); }
    void operator()(const UpcallSection& u) const { each(upcalls(u)); }
    void operator()(const ProfileSection& p) const
    {
        if (p.profile)
            print(where_it_ran(*p.profile));
    }

    void each(const std::vector<Table>& tables) const
    {
        for (const Table& t : tables)
            print(t);
    }
};

}  // namespace

void for_each_text_table(const Section& section, const std::function<void(const Table&)>& print)
{
    std::visit(ToText{print}, section);
}

}  // namespace kdelay
