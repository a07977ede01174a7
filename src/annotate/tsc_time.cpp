#include "annotate/tsc_time.h"

#include <cmath>

namespace kdelay {
namespace {

using u128 = unsigned __int128;

int bit_length(u128 v)
{
    const uint64_t hi = static_cast<uint64_t>(v >> 64);
    if (hi)
        return 128 - __builtin_clzll(hi);
    const uint64_t lo = static_cast<uint64_t>(v);
    return lo ? 64 - __builtin_clzll(lo) : 0;
}

}  // namespace

double exact_ratio(u128 num, uint64_t den)
{
    constexpr uint64_t exact = uint64_t{1} << 53;
    if (num < exact && den < exact)  // both exact doubles: IEEE division rounds once
        return static_cast<double>(static_cast<uint64_t>(num)) / static_cast<double>(den);
    if (num == 0)
        return 0.0;
    // Scale so the quotient has 63+ bits, then round to 53 by hand, with the
    // remainder as the sticky bit.
    const int scale = 127 - bit_length(num);
    const u128 scaled = num << scale;
    const u128 q = scaled / den;
    const bool sticky = scaled % den != 0;
    const int drop = bit_length(q) - 53;
    const u128 dropped = q & ((u128{1} << drop) - 1);
    const u128 half = u128{1} << (drop - 1);
    uint64_t mantissa = static_cast<uint64_t>(q >> drop);
    if (dropped > half || (dropped == half && (sticky || (mantissa & 1))))
        ++mantissa;
    return std::ldexp(static_cast<double>(mantissa), drop - scale);
}

double ticks_to_us(uint64_t tsc, uint64_t base, uint64_t rate)
{
    const bool negative = tsc < base;
    const u128 ticks = negative ? base - tsc : tsc - base;
    const double us = exact_ratio(ticks * 1000000u, rate);
    return negative ? -us : us;
}

int64_t ticks_to_ns(uint64_t tsc, uint64_t base, uint64_t rate)
{
    const bool negative = tsc < base;
    const u128 ticks = negative ? base - tsc : tsc - base;
    const u128 ns = ticks * 1000000000u / rate;
    const int64_t clamped = ns > INT64_MAX ? INT64_MAX : static_cast<int64_t>(ns);
    return negative ? -clamped : clamped;
}

}  // namespace kdelay
