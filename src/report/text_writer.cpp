#include "report/text_writer.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <vector>

#include "report/format.h"
#include "report/histogram.h"

namespace kdelay {
namespace {

const std::string kIndent(28, ' ');

struct Section {
    std::string title;
    std::vector<std::string> lines;  // column header first
};

Section syscall_section(const ThreadSample& t, uint32_t poll_nr)
{
    Section s{"[SYSCALL STATISTICS]",
              {fmt::format("{:20} {:>6}  {:>10}  {:>16}  {:>16}", "NAME", "NUMBER", "COUNT",
                           "TOTAL ns", "MAX ns")}};
    uint64_t count = 0, total = 0;
    for (const auto& sc : t.syscalls) {
        s.lines.push_back(fmt::format("{:20.20} {:>6}  {:>10}  {:>16}  {:>16}", sc.name, sc.nr,
                                      sc.stat.count, with_commas(sc.stat.total_ns),
                                      with_commas(sc.stat.max_ns)));
        if (sc.nr != poll_nr) {
            count += sc.stat.count;
            total += sc.stat.total_ns;
        }
    }
    if (count > 0)
        s.lines.push_back(fmt::format("{:20.20} {:6}  {:>10}  {:>16}", "TOTAL( - poll):", "", count,
                                      with_commas(total)));
    return s;
}

Section long_poll_section(const Stat& st)
{
    return {"[LONG POLL STATISTICS]",
            {fmt::format("{:10}  {:>16}  {:>16}  {:>16}", "COUNT", "AVERAGE ns", "MIN ns", "MAX ns"),
             fmt::format("{:>10}  {:>16}  {:>16}  {:>16}", st.count,
                         with_commas(st.total_ns / st.count), with_commas(st.min_ns),
                         with_commas(st.max_ns))}};
}

Section run_section(const Stat& st)
{
    return {"[THREAD RUN STATISTICS]",
            {fmt::format("{:10}  {:>16}  {:>16}  {:>16}", "SCHED_CNT", "TOTAL ns", "MIN ns", "MAX ns"),
             fmt::format("{:>10}  {:>16}  {:>16}  {:>16}", st.count, with_commas(st.total_ns),
                         with_commas(st.min_ns), with_commas(st.max_ns))}};
}

Section count_total_max_section(const char* title, const char* count_label, const Stat& st)
{
    return {title,
            {fmt::format("{:10}  {:>16}  {:>16}", count_label, "TOTAL ns", "MAX ns"),
             fmt::format("{:>10}  {:>16}  {:>16}", st.count, with_commas(st.total_ns),
                         with_commas(st.max_ns))}};
}

Section hardirq_section(const std::vector<IrqStat>& irqs)
{
    Section s{"[HARD IRQ STATISTICS]",
              {fmt::format("{:20}  {:>10}  {:>16}  {:>16}", "NAME", "COUNT", "TOTAL ns", "MAX ns")}};
    uint64_t count = 0, total = 0;
    for (const auto& irq : irqs) {
        s.lines.push_back(fmt::format("{:20.20}  {:>10}  {:>16}  {:>16}", irq.name, irq.stat.count,
                                      with_commas(irq.stat.total_ns), with_commas(irq.stat.max_ns)));
        count += irq.stat.count;
        total += irq.stat.total_ns;
    }
    s.lines.push_back(fmt::format("{:20.20}  {:>10}  {:>16}", "TOTAL:", count, with_commas(total)));
    return s;
}

Section softirq_section(const std::vector<IrqStat>& irqs)
{
    Section s{"[SOFT IRQ STATISTICS]",
              {fmt::format("{:20} {:>7}  {:>10}  {:>16}  {:>16}", "NAME", "VECT_NR", "COUNT",
                           "TOTAL ns", "MAX ns")}};
    uint64_t count = 0, total = 0;
    for (const auto& irq : irqs) {
        s.lines.push_back(fmt::format("{:20.20} {:>7}  {:>10}  {:>16}  {:>16}", irq.name, irq.vector,
                                      irq.stat.count, with_commas(irq.stat.total_ns),
                                      with_commas(irq.stat.max_ns)));
        count += irq.stat.count;
        total += irq.stat.total_ns;
    }
    s.lines.push_back(
        fmt::format("{:20.20} {:7}  {:>10}  {:>16}", "TOTAL:", "", count, with_commas(total)));
    return s;
}

Section blockio_section(const std::vector<BlockIoStat>& ios)
{
    Section s{"[BLOCK I/O STATISTICS]",
              {fmt::format("{:10} {:1}  {:>10}  {:>16}  {:>16}  {:>16}", "DISK", "T", "COUNT", "BYTES",
                           "TOTAL ns", "MAX ns")}};
    for (const auto& io : ios)
        s.lines.push_back(fmt::format("{:10.10} {:1}  {:>10}  {:>16}  {:>16}  {:>16}", io.disk, io.op,
                                      io.stat.count, with_commas(io.bytes),
                                      with_commas(io.stat.total_ns), with_commas(io.stat.max_ns)));
    return s;
}

Section histogram_section(const HistogramSample& h)
{
    const std::string what = h.kind + (h.name.empty() ? "" : " " + h.name) +
                             (h.kind == "syscall" || h.kind == "blocked" ? " (" + std::to_string(h.id) + ")" : "");
    Section s{"[LATENCY HISTOGRAM]",
              {fmt::format("{}: count {}, p50 {} ns, p90 {} ns, p99 {} ns", what, with_commas(h.hist.total()),
                           with_commas(h.hist.percentile(0.5)), with_commas(h.hist.percentile(0.9)),
                           with_commas(h.hist.percentile(0.99)))}};
    for (auto& line : render_log2_hist(h.hist, "ns"))
        s.lines.push_back(std::move(line));
    return s;
}

Section budget_section(const TimeBudget& b)
{
    Section s{"[THREAD TIME BUDGET]", {fmt::format("{:24}  {:>16}  {:>7}", "STATE", "TIME ns", "SHARE")}};
    auto row = [&](const std::string& name, int64_t ns) {
        const double share = b.window_ns ? 100.0 * static_cast<double>(ns) / static_cast<double>(b.window_ns) : 0.0;
        const std::string time = ns < 0 ? "-" + with_commas(static_cast<uint64_t>(-ns)) : with_commas(static_cast<uint64_t>(ns));
        s.lines.push_back(fmt::format("{:24.24}  {:>16}  {:>6.1f}%", name, time, share));
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
        s.lines.push_back("(no event in the window: the state /proc shows)");
    return s;
}

// The top 5 wakers by blocked time ended and the top 5 by count; the rest
// in one line.
Section wakers_section(const std::vector<TimeBudget::Waker>& all)
{
    Section s{"[THREAD WAKERS]",
              {fmt::format("{:24}  {:>10}  {:>16}", "WOKEN BY", "COUNT", "BLOCKED ns")}};
    std::vector<size_t> by_count(all.size());
    for (size_t i = 0; i < all.size(); ++i)
        by_count[i] = i;
    std::stable_sort(by_count.begin(), by_count.end(),
                     [&](size_t a, size_t b) { return all[a].count > all[b].count; });
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
        s.lines.push_back(fmt::format("{:24.24}  {:>10}  {:>16}", waker_label(w.kind, w.comm, w.pid, w.tid), w.count,
                                      with_commas(w.blocked_ns)));
    }
    if (other_count)
        s.lines.push_back(fmt::format("{:24.24}  {:>10}  {:>16}", "others", other_count, with_commas(other_ns)));
    return s;
}

// The 5 tasks that held the CPU longest while the thread waited for it,
// then interrupts, then the rest as "others".
Section ready_blame_section(const std::vector<TimeBudget::Holder>& all)
{
    Section s{"[THREAD READY BLAME]", {fmt::format("{:24}  {:>16}", "CPU HELD BY", "TIME ns")}};
    uint64_t irq = 0, others = 0;
    size_t tasks = 0;
    for (const auto& h : all) {
        if (h.kind == "irq")
            irq += h.ns;
        else if (h.kind != "task" || ++tasks > 5)
            others += h.ns;
        else
            s.lines.push_back(fmt::format("{:24.24}  {:>16}",
                                          h.tid == 0 ? "[idle]" : task_label(h.comm, h.pid, h.tid),
                                          with_commas(h.ns)));
    }
    if (irq)
        s.lines.push_back(fmt::format("{:24.24}  {:>16}", "[hard and soft IRQs]", with_commas(irq)));
    if (others)
        s.lines.push_back(fmt::format("{:24.24}  {:>16}", "others", with_commas(others)));
    return s;
}

// The syscall section always, as upstream prints it; the others only with data.
std::vector<Section> thread_sections(const ThreadSample& t, uint32_t poll_nr)
{
    std::vector<Section> sections;
    sections.push_back(syscall_section(t, poll_nr));
    if (t.long_poll)
        sections.push_back(long_poll_section(*t.long_poll));
    if (t.run)
        sections.push_back(run_section(*t.run));
    if (t.ready)
        sections.push_back(count_total_max_section("[THREAD READY STATISTICS]", "SCHED_CNT", *t.ready));
    if (t.stopped)
        sections.push_back(count_total_max_section("[THREAD STOPPED STATISTICS]", "STOP_CNT", *t.stopped));
    if (!t.hardirqs.empty())
        sections.push_back(hardirq_section(t.hardirqs));
    if (!t.softirqs.empty())
        sections.push_back(softirq_section(t.softirqs));
    if (!t.blockio.empty())
        sections.push_back(blockio_section(t.blockio));
    for (const auto& h : t.histograms)
        sections.push_back(histogram_section(h));
    if (t.budget) {
        sections.push_back(budget_section(*t.budget));
        if (!t.budget->ready_blame.empty())
            sections.push_back(ready_blame_section(t.budget->ready_blame));
        if (!t.budget->wakers.empty())
            sections.push_back(wakers_section(t.budget->wakers));
    }
    return sections;
}

}  // namespace

void TextWriter::marker(const Marker& m)
{
    std::string what;
    const std::string trigger = m.trigger_ns ? " (trigger@" + std::to_string(*m.trigger_ns) + ")" : "";
    switch (m.kind) {
    case Marker::Kind::start: what = "Start sampling" + trigger; break;
    case Marker::Kind::stop: what = "Stop sampling" + trigger; break;
    case Marker::Kind::dump:
        what = m.delta_ns ? "Triggered sample dump, stop-start delta " + with_commas(*m.delta_ns) + " ns"
                          : "Sample dump";
        break;
    case Marker::Kind::dump_skipped:
        what = "Sample dump skipped, delta " + with_commas(m.delta_ns.value_or(0)) + " ns";
        break;
    }
    out_ << "# " << what << " " << timestamp_suffix(m.when) << "\n" << std::flush;
}

void TextWriter::sample(const Sample& sample)
{
    out_ << fmt::format("{:10} {:16} {}\n", "TID", "THREAD", "<RESOURCE SPECIFIC>");
    out_ << fmt::format("{:10} {:16} {}\n", std::string(10, '-'), std::string(16, '-'),
                        std::string(76, '-'));
    bool first_thread = true;
    for (const auto& t : sample.threads) {
        if (!first_thread)
            out_ << "\n";
        first_thread = false;
        bool first_section = true;
        for (const auto& s : thread_sections(t, sample.poll_nr)) {
            if (first_section)
                out_ << fmt::format("{:>10} {:16} {}\n", t.tid, t.name, s.title);
            else
                out_ << fmt::format("\n{:10} {:16} {}\n", "", "", s.title);
            first_section = false;
            for (const auto& line : s.lines)
                out_ << kIndent << line << "\n";
        }
    }
    if (sample.upcalls && UpcallStats::sum(sample.upcalls->total) > 0)
        upcalls(*sample.upcalls);
    if (!sample.events.empty())
        events(sample.events);
    out_ << std::flush;
}

// " [0: 12, 1: 3]": only CPUs that made a call.
static std::string per_cpu_list(const UpcallStats::PerCpu& per_cpu)
{
    std::vector<std::string> parts;
    for (const auto& [cpu, calls] : per_cpu)
        if (calls > 0)
            parts.push_back(fmt::format("{}: {}", cpu, calls));
    return fmt::format("{} [{}]", UpcallStats::sum(per_cpu), fmt::join(parts, ", "));
}

void TextWriter::upcalls(const UpcallStats& u)
{
    out_ << "\n\n# UPCALL STATISTICS (TOTAL [CPU_ID: N_UPCALLS_PER_CPU, ...]):\n";
    out_ << "  Total upcalls       : " << per_cpu_list(u.total) << "\n";
    if (u.failed.empty())
        return;
    out_ << "  Successfull upcalls : " << per_cpu_list(u.succeeded) << "\n";  // upstream's spelling
    UpcallStats::PerCpu failed;
    for (const auto& [err, per_cpu] : u.failed)
        for (const auto& [cpu, calls] : per_cpu)
            failed[cpu] += calls;
    out_ << "  Failed upcalls      : " << per_cpu_list(failed) << "\n";
    for (const auto& [err, per_cpu] : u.failed) {
        out_ << fmt::format("    {:>3}, {:13}: {}\n", err, errno_name(err, "E?"), per_cpu_list(per_cpu));
    }
}

void TextWriter::events(const std::vector<SyscallEvent>& events)
{
    out_ << "\n\n# SYSCALL EVENTS:\n";
    out_ << fmt::format("  {:>19} {:>19} {:>10} {:16} {:>10}  {}\n", "ENTRY (ns)", "EXIT (ns)", "TID",
                        "COMM", "DELTA (us)", "SYSCALL");
    out_ << fmt::format("  {:19} {:19} {:10} {:16} {:10}  {}\n", std::string(19, '-'),
                        std::string(19, '-'), std::string(10, '-'), std::string(16, '-'),
                        std::string(10, '-'), std::string(16, '-'));
    for (const auto& e : events) {
        out_ << fmt::format("  {:>19} {:>19} {:>10} {:16} {:>10}  {}\n", e.entry_ns, e.exit_ns, e.tid,
                            e.comm, with_commas((e.exit_ns - e.entry_ns) / 1000), e.name);
        if (!e.waker.empty())
            out_ << "          woken by " << e.waker << "\n";
        for (const auto& frame : e.frames)
            out_ << "          " << frame << "\n";
    }
}

// biosnoop's layout.
void TextWriter::bio_header(bool queue)
{
    out_ << fmt::format("{:<11} {:<14} {:<6} {:<7} {:<1} {:<10} {:<7} ", "TIME(s)", "COMM", "PID",
                        "DISK", "T", "SECTOR", "BYTES");
    if (queue)
        out_ << fmt::format("{:>7} ", "QUE(ms)");
    out_ << fmt::format("{:>7}\n", "LAT(ms)") << std::flush;
}

void TextWriter::bio_event(const BioEvent& e, bool queue)
{
    out_ << fmt::format("{:<11.6f} {:<14.14} {:<6} {:<7} {:<1} {:<10} {:<7} ", e.time_s, e.comm,
                        e.pid, e.disk, e.op, e.sector, e.bytes);
    if (queue)
        out_ << fmt::format("{:>7.2f} ", e.queue_ns / 1e6);
    out_ << fmt::format("{:>7.2f}\n", e.device_ns / 1e6);
}

void TextWriter::bio_summary(const std::vector<BioSummaryRow>& rows)
{
    out_ << "\n# Summary per disk and operation\n";
    out_ << fmt::format("{:<10} {:1} {:>10} {:>16} {:>12} {:>12}\n", "DISK", "T", "COUNT", "BYTES",
                        "AVG LAT(ms)", "MAX LAT(ms)");
    for (const auto& r : rows)
        out_ << fmt::format("{:<10} {:1} {:>10} {:>16} {:>12.3f} {:>12.3f}\n", r.disk, r.op, r.count,
                            with_commas(r.bytes),
                            r.count ? r.total_device_ns / 1e6 / static_cast<double>(r.count) : 0.0,
                            r.max_device_ns / 1e6);
    out_ << std::flush;
}

void TextWriter::note(const std::string& text) { out_ << "# " << text << "\n" << std::flush; }

void TextWriter::warning(const std::string& text)
{
    out_ << "\n# WARNING: " << text << "\n" << std::flush;
}

}  // namespace kdelay
