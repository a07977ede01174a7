// TSC ticks to microseconds exactly as trace.py computes them: Python divides
// the integers (ticks * 10**6) / tsc_rate and rounds once to a double, so the
// printed digits match trace.py's even where a float multiply would not.
#pragma once

#include <cstdint>

namespace kdelay {

// The double nearest to num / den (ties to even); den > 0.
double exact_ratio(unsigned __int128 num, uint64_t den);

// (tsc - base) µs at rate ticks per second; negative when tsc < base.
double ticks_to_us(uint64_t tsc, uint64_t base, uint64_t rate);

// (tsc - base) ns, truncated toward zero, for JSON.
int64_t ticks_to_ns(uint64_t tsc, uint64_t base, uint64_t rate);

}  // namespace kdelay
