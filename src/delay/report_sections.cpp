#include "delay/report_sections.h"

#include "delay/section.h"

namespace kdelay {
namespace {

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
                 json_only("pid"),
                 json_only("nr"),
                 json_only("frames"),
                 json_only("stack_lost"),
                 json_only("waker")};
    for (const auto& e : events) {
        Row r{{e.entry_ns, e.exit_ns, uint64_t{e.tid}, e.comm, (e.exit_ns - e.entry_ns) / 1000, e.name,
               e.exit_ns - e.entry_ns, uint64_t{e.pid}, uint64_t{e.nr}, e.frames, e.stack_lost,
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
std::vector<Section> thread_sections(ThreadSample& t, uint32_t poll_nr)
{
    std::vector<Section> s;
    s.reserve(16);
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
    s.push_back(Histograms{std::move(t.histograms)});
    s.push_back(BudgetSection{std::move(t.budget)});
    s.push_back(ProfileSection{std::move(t.profile)});
    return s;
}

}  // namespace

Report delay_report(Sample sample)
{
    Report r;
    r.fields.emplace_back("poll_nr", uint64_t{sample.poll_nr});
    r.fields.emplace_back("probe_runs_skipped", sample.probe_runs_skipped);
    for (auto& t : sample.threads)
        r.threads.push_back(ThreadSections{t.tid, t.pid, t.name, thread_sections(t, sample.poll_nr)});
    r.sample_sections.push_back(UpcallSection{std::move(sample.upcalls)});
    r.sample_sections.push_back(syscall_events(sample.events));
    return r;
}

}  // namespace kdelay
