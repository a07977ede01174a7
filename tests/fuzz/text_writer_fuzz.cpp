// The text report given names that any process may choose (thread names,
// holders, wakers, syscall-event lines, symbols). What it prints must be
// valid UTF-8 with no control character but its own line breaks, and have
// as many lines as the same report with plain names: no name can add a
// line or drive a terminal.
#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "delay/report_sections.h"
#include "fuzz_input.h"
#include "report/writers.h"

namespace {

using namespace kdelay;

Sample sample_named(const std::vector<std::string>& n)
{
    const auto name = [&](size_t i) { return n[i % n.size()]; };
    ThreadSample t;
    t.tid = 7;
    t.pid = 7;
    t.name = name(0);
    t.syscalls = {{7, "poll", {1, 10, 10, 10}}};
    t.run = Stat{1, 10, 10, 10};
    t.hardirqs = {{name(1), 0, {1, 5, 5, 5}}};
    t.sections["locks"] = {{name(2), 1, {1, 5, 5, 5}}};
    TimeBudget b;
    b.window_ns = 100;
    b.running_ns = 40;
    b.ready_ns = 30;
    b.blocked_ns = 30;
    b.blocked = {{202, "futex", 30}};
    b.wakers = {{{WakerKind::task, 8, 7, name(3)}, 1, 30}};
    b.ready_blame = {{{HolderKind::task, 9, 7, name(4)}, 30}};
    t.budget = b;
    ThreadSample other = t;
    other.tid = 8;
    other.pid = 9;
    other.name = name(5);
    Sample s;
    s.threads = {t, other};
    s.events = {{1, 2, 7, 7, name(6), 7, "poll", {name(7), name(8)}, false, name(9) + " (7/8)"}};
    return s;
}

std::string render(const std::vector<std::string>& names)
{
    std::ostringstream out;
    auto writer = make_text_writer(out);
    const Sample s = sample_named(names);
    writer->report(delay_report(s));
    StallReport stall;
    stall.end_ns = 100;
    stall.thread = delay_report(s).threads.at(0);
    writer->stall(stall);
    writer->warning(names[0]);
    return out.str();
}

size_t lines(const std::string& text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    kdfuzz::use_utf8();
    const std::vector<std::string> names = kdfuzz::words(data, size, 10);
    const std::string text = render(names);
    kdfuzz::check_printable(text);
    if (lines(text) != lines(render(std::vector<std::string>(names.size(), "x"))))
        std::abort();  // a name added or removed a line
    return 0;
}
