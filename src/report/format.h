// Number and time formatting shared by the report writers.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "report/time_budget.h"

namespace kdelay {

// Text that outside processes chose (thread names, probe strings, symbols)
// made safe for a terminal and for a line-based report: control
// characters (C0, DEL, C1), backslashes and bytes that are not UTF-8 become
// "\xNN"; valid UTF-8 otherwise passes.
std::string printable(std::string_view text);

// 1234567 -> "1,234,567".
std::string with_commas(uint64_t value);

// A thread's name with its digits left out, so that a pool's threads share
// one (handler12, handler7: handler), as a label of bounded count.
std::string name_without_digits(std::string_view name);

// An errno's short name (11 -> "EAGAIN"), or unknown when libc has none.
std::string errno_name(int err, const char* unknown);

// "comm (pid/tid)": a task as the reports name it.
std::string task_label(const std::string& comm, uint32_t pid, uint32_t tid);

// Who woke a thread, as the reports name it: a task by task_label(), an
// interrupt context in brackets.
std::string waker_label(WakerKind kind, const std::string& comm, uint32_t pid, uint32_t tid);

// "@2023-06-08T12:17:22.725127 (10:17:22 UTC)": local ISO time, then UTC.
std::string timestamp_suffix(std::chrono::system_clock::time_point when);

}  // namespace kdelay
