#include "annotate/fixed_format.h"

#include <cmath>

namespace kdelay {

void append_fixed3(fmt::memory_buffer& out, double v, size_t width, Align align)
{
    int exp = 0;
    const double frac = std::frexp(std::fabs(v), &exp);  // |v| = frac * 2^exp, frac in [0.5, 1)
    const int e = exp - 53;                               // |v| = m * 2^e, m integer
    if (!std::isfinite(v) || e > 60) {                    // never for µs from a u64 TSC
        const std::string s = fmt::format("{:.3f}", v);
        for (size_t w = s.size(); align == Align::right && w < width; ++w)
            out.push_back(' ');
        out.append(s.data(), s.data() + s.size());
        for (size_t w = s.size(); align == Align::left && w < width; ++w)
            out.push_back(' ');
        return;
    }
    using u128 = unsigned __int128;
    const u128 scaled = static_cast<u128>(static_cast<uint64_t>(std::ldexp(frac, 53))) * 1000;
    u128 q;
    if (e >= 0) {
        q = scaled << e;
    } else if (-e >= 127) {
        q = 0;  // far below 0.0005
    } else {
        const int s = -e;
        q = scaled >> s;
        const u128 rest = scaled & ((u128{1} << s) - 1);
        const u128 half = u128{1} << (s - 1);
        if (rest > half || (rest == half && (q & 1)))
            ++q;
    }
    char digits[48];
    char* end = digits + sizeof(digits);
    char* p = end;
    const u128 whole = q / 1000;
    const auto milli = static_cast<unsigned>(q % 1000);
    *--p = static_cast<char>('0' + milli % 10);
    *--p = static_cast<char>('0' + milli / 10 % 10);
    *--p = static_cast<char>('0' + milli / 100);
    *--p = '.';
    if (whole >> 64 == 0) {
        uint64_t w = static_cast<uint64_t>(whole);
        do {
            *--p = static_cast<char>('0' + w % 10);
            w /= 10;
        } while (w);
    } else {
        u128 w = whole;
        do {
            *--p = static_cast<char>('0' + static_cast<unsigned>(w % 10));
            w /= 10;
        } while (w);
    }
    if (std::signbit(v))
        *--p = '-';
    const size_t len = static_cast<size_t>(end - p);
    if (align == Align::right)
        for (size_t i = len; i < width; ++i)
            out.push_back(' ');
    out.append(p, end);
    if (align == Align::left)
        for (size_t i = len; i < width; ++i)
            out.push_back(' ');
}

}  // namespace kdelay
