// The report writers, each printing the kinds of report/report.h.
#pragma once

#include <functional>
#include <memory>
#include <ostream>

#include "report/writer.h"
#include "sys/systemd.h"

namespace kdelay {

// kernel_delay.py's and biosnoop's text layouts.
std::unique_ptr<ReportWriter> make_text_writer(std::ostream& out);

// JSON Lines: one object per marker, sample, note, warning or row, with raw
// integer nanoseconds. The schema is in docs/json.md.
std::unique_ptr<ReportWriter> make_json_writer(std::ostream& out);

// The systemd journal: each item one entry, with a one-line MESSAGE, its
// numbers as KDELAY_* fields and its JSON object in KDELAY_JSON. send: where
// each entry goes (the journal; a test or fuzz target's own).
using JournalSend = std::function<void(const JournalFields&)>;
std::unique_ptr<ReportWriter> make_journal_writer(JournalSend send = journal_send);

// For stderr beside a mode's data on stdout: notes and warnings as kdelay's
// diagnostics ("kdelay: ...", "kdelay: warning: ...").
std::unique_ptr<ReportWriter> make_diagnostics_writer(std::ostream& err);

}  // namespace kdelay
