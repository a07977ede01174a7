// The text report: kernel_delay.py's and biosnoop's layouts, from the
// tables of report/table.h.
#pragma once

#include <ostream>

#include "report/writer.h"

namespace kdelay {

class TextWriter : public ReportWriter {
public:
    explicit TextWriter(std::ostream& out) : out_(out) {}
    // For stderr beside a mode's data on stdout: notes and warnings as
    // kdelay's diagnostics ("kdelay: ...", "kdelay: warning: ...").
    static TextWriter diagnostics(std::ostream& err)
    {
        TextWriter w(err);
        w.diagnostics_ = true;
        return w;
    }

    void marker(const Marker& marker) override;
    void report(const Report& report) override;
    void rows_begin(const Table& columns) override;
    void row(const Table& columns, const Row& row) override;
    void table(const Table& table) override;
    void note(const std::string& text) override;
    void warning(const std::string& text) override;

private:
    // The header, the rule, the rows and the free lines, each after indent.
    void body(const Table& table, const std::string& indent);
    std::ostream& out_;
    bool diagnostics_ = false;
};

}  // namespace kdelay
