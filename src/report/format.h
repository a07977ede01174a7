// Number and time formatting shared by the report writers.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace kdelay {

// 1234567 -> "1,234,567".
std::string with_commas(uint64_t value);

// "@2023-06-08T12:17:22.725127 (10:17:22 UTC)": local ISO time, then UTC.
std::string timestamp_suffix(std::chrono::system_clock::time_point when);

}  // namespace kdelay
