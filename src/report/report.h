// The report model: what a mode hands to the writers. A section is one of
// the report's kinds, each typed data that the text and the JSON writer
// both print (report/text_sections.h, report/json_sections.h), so the two
// cannot disagree on a number.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "report/histogram.h"
#include "report/table.h"
#include "report/time_budget.h"
#include "report/upcall_counts.h"

namespace kdelay {

// JSON "histograms": a list, empty without any.
struct Histograms {
    std::vector<LatencyHistogram> list;
};

// JSON "budget": null without one (no --budget).
struct BudgetSection {
    std::optional<TimeBudget> budget;
};

// JSON "upcalls": null when not counted; text: only when an upcall was seen.
struct UpcallSection {
    std::optional<UpcallStats> upcalls;
};

// A sample's --profile of a thread (a stall's is its budget's): JSON
// "profile", null without one; text: [WHERE IT RAN].
struct ProfileSection {
    std::optional<TimeBudget::Profile> profile;
};

using Section = std::variant<Table, Histograms, BudgetSection, UpcallSection, ProfileSection>;

// A group of sections about one thread (the per-thread report).
struct ThreadSections {
    uint32_t tid = 0;
    uint32_t pid = 0;  // its process (0: not known)
    std::string name;
    std::vector<Section> sections;
};

// One sample of the per-thread report: each thread's sections, then the
// sections about the whole sample (upcalls, syscall events).
struct Report {
    std::vector<std::pair<std::string, Cell>> fields;  // JSON only: "poll_nr"
    std::vector<ThreadSections> threads;
    std::vector<Section> sample_sections;
};

// --stall: one long interval of one thread, reported as it ends.
struct StallReport {
    uint64_t start_ns = 0;  // CLOCK_MONOTONIC
    uint64_t end_ns = 0;
    uint64_t voluntary_switches = 0;  // as getrusage() counts them, over the interval
    uint64_t involuntary_switches = 0;
    std::chrono::system_clock::time_point start_wall;
    std::string process_name;  // its main thread's name now; empty when gone
    ThreadSections thread;
    std::string timeline_path;  // --timeline: its Perfetto trace ("": none)
    uint64_t timeline_not_kept = 0;  // events the kernel did not keep for it (the oldest)
    std::string profile_folded_path;  // --profile-folded: its folded stacks ("": none)
};

}  // namespace kdelay
