#include <algorithm>
#include <fmt/format.h>

#include "report/format.h"
#include "report/text_sections.h"
#include "report/writers.h"

namespace kdelay {
namespace {

const std::string kIndent(28, ' ');

bool has_text(const Table& t) { return !t.rows.empty() || !t.text_lines.empty() || t.shown_empty; }

// "# PROCESS 1234 (ovs-vswitchd)": the process of the thread at i, named by
// its main thread when that is in the report.
std::string process_line(const Report& report, size_t i)
{
    const uint32_t pid = report.threads[i].pid;
    if (pid == 0)
        return "# PROCESS not known";
    std::string line = "# PROCESS " + std::to_string(pid);
    for (size_t j = i; j < report.threads.size() && report.threads[j].pid == pid; ++j)
        if (report.threads[j].tid == pid)
            line += " (" + printable(report.threads[j].name) + ")";
    return line;
}

bool has_header(const Table& t)
{
    return std::any_of(t.columns.begin(), t.columns.end(), [](const Column& c) { return !c.title.empty(); });
}

class TextWriter : public ReportWriter {
public:
    TextWriter(std::ostream& out, bool diagnostics) : out_(out), diagnostics_(diagnostics) {}

    void marker(const Marker& marker) override;
    void report(const Report& report) override;
    void stall(const StallReport& stall) override;
    void rows_begin(const Table& t) override { out_ << text_header(t) << "\n" << std::flush; }
    void row(const Table& t, const Row& r) override { out_ << text_row(t, r) << "\n"; }
    void table(const Table& table) override;

    void note(const std::string& text) override
    {
        out_ << (diagnostics_ ? "kdelay: " : "# ") << printable(text) << "\n" << std::flush;
    }

    void warning(const std::string& text) override
    {
        out_ << (diagnostics_ ? "kdelay: warning: " : "\n# WARNING: ") << printable(text) << "\n" << std::flush;
    }

    void lost(const Loss& loss) override
    {
        out_ << (diagnostics_ ? "kdelay: lost: " : "# LOST: ") << printable(loss.text) << "\n" << std::flush;
    }

private:
    // The header, the rule, the rows and the free lines, each after indent.
    void body(const Table& table, const std::string& indent);
    void column_header();
    // A thread's tables, the first beside its tid and name.
    void thread(const ThreadSections& t);
    std::ostream& out_;
    bool diagnostics_;
};

void TextWriter::body(const Table& t, const std::string& indent)
{
    if (has_header(t))
        out_ << indent << text_header(t) << "\n";
    if (!t.rule.empty())
        out_ << indent << text_rule(t) << "\n";
    for (const auto& r : t.rows) {
        out_ << indent << text_row(t, r) << "\n";
        for (const auto& line : r.text_after)
            out_ << printable(line) << "\n";
    }
    for (const auto& line : t.text_lines)
        out_ << indent << printable(line) << "\n";
}

void TextWriter::marker(const Marker& m)
{
    std::string what;
    const std::string trigger = m.trigger_ns ? " (trigger@" + std::to_string(*m.trigger_ns) + ")" : "";
    switch (m.kind) {
    case Marker::Kind::start: what = "Start sampling" + trigger; break;
    case Marker::Kind::watch: what = "Start watching for stalls"; break;
    case Marker::Kind::watch_end: what = "Stop watching"; break;
    case Marker::Kind::restart:
        what = "Target restarted: its cgroup was made anew (id " + std::to_string(m.cgroup_id.value_or(0)) + ")";
        break;
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

void TextWriter::column_header()
{
    out_ << fmt::format("{:10} {:16} {}\n", "TID", "THREAD", "<RESOURCE SPECIFIC>");
    out_ << fmt::format("{:10} {:16} {}\n", std::string(10, '-'), std::string(16, '-'), std::string(76, '-'));
}

void TextWriter::thread(const ThreadSections& t)
{
    bool first_table = true;
    for (const auto& section : t.sections)
        for_each_text_table(section, [&](const Table& s) {
            if (!has_text(s))
                return;
            if (first_table)
                out_ << fmt::format("{:>10} {:16} {}\n", t.tid, printable(t.name), s.title);
            else
                out_ << fmt::format("\n{:10} {:16} {}\n", "", "", s.title);
            first_table = false;
            body(s, kIndent);
        });
}

void TextWriter::stall(const StallReport& s)
{
    const uint64_t ns = s.end_ns > s.start_ns ? s.end_ns - s.start_ns : 0;
    out_ << fmt::format("\n# STALL of {:.1f} ms ({} ns) in thread {} ({}) of process {}, beginning {}\n",
                        static_cast<double>(ns) / 1e6, with_commas(ns), s.thread.tid, printable(s.thread.name), s.thread.pid,
                        timestamp_suffix(s.start_wall));
    out_ << fmt::format("# monotonic {} to {}\n", with_commas(s.start_ns), with_commas(s.end_ns));
    out_ << fmt::format("# context switches: {} voluntary, {} involuntary\n", with_commas(s.voluntary_switches),
                        with_commas(s.involuntary_switches));
    if (!s.timeline_path.empty())
        out_ << "# timeline: " << printable(s.timeline_path)
             << (s.timeline_not_kept ? " (its first " + with_commas(s.timeline_not_kept) + " events not kept)" : "")
             << "\n";
    if (!s.profile_folded_path.empty())
        out_ << "# profile: " << printable(s.profile_folded_path) << "\n";
    column_header();
    thread(s.thread);
    out_ << std::flush;
}

void TextWriter::report(const Report& report)
{
    column_header();
    // Several processes: each one's threads under a line naming it.
    const bool by_process = std::any_of(report.threads.begin(), report.threads.end(),
                                        [&](const ThreadSections& t) { return t.pid != report.threads[0].pid; });
    bool first_thread = true;
    for (size_t i = 0; i < report.threads.size(); ++i) {
        const ThreadSections& t = report.threads[i];
        if (!first_thread)
            out_ << "\n";
        first_thread = false;
        if (by_process && (i == 0 || t.pid != report.threads[i - 1].pid))
            out_ << process_line(report, i) << "\n";
        thread(t);
    }
    for (const auto& section : report.sample_sections)
        for_each_text_table(section, [&](const Table& b) {
            if (!has_text(b))
                return;
            out_ << "\n\n" << b.title << "\n";
            body(b, std::string(static_cast<size_t>(b.indent), ' '));
        });
    out_ << std::flush;
}

void TextWriter::table(const Table& t)
{
    out_ << "\n" << t.title << "\n";
    body(t, std::string(static_cast<size_t>(t.indent), ' '));
    out_ << std::flush;
}

}  // namespace

std::unique_ptr<ReportWriter> make_text_writer(std::ostream& out) { return std::make_unique<TextWriter>(out, false); }

std::unique_ptr<ReportWriter> make_diagnostics_writer(std::ostream& err)
{
    return std::make_unique<TextWriter>(err, true);
}

}  // namespace kdelay
