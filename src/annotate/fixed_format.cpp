#include "annotate/fixed_format.h"

#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <string>

namespace kdelay {
namespace {

char* pad_to(char* out, const char* s, size_t len, size_t width, Align align)
{
    const size_t pad = len < width ? width - len : 0;
    if (align == Align::right) {
        std::memset(out, ' ', pad);
        out += pad;
    }
    std::memcpy(out, s, len);
    out += len;
    if (align == Align::left) {
        std::memset(out, ' ', pad);
        out += pad;
    }
    return out;
}

}  // namespace

char* write_fixed3(char* out, double v, size_t width, Align align)
{
    // |v| = m * 2^e with m an integer, straight from the bits (frexp and
    // ldexp were library calls per value).
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    const auto biased = static_cast<int>((bits >> 52) & 0x7ff);
    const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
    const uint64_t m = biased ? fraction | (uint64_t{1} << 52) : fraction;
    const int e = biased ? biased - 1075 : -1074;
    if (biased == 0x7ff || e > 60) {  // never for µs from a u64 TSC
        const std::string s = fmt::format("{:.3f}", v);
        return pad_to(out, s.data(), s.size(), width, align);
    }
    using u128 = unsigned __int128;
    const u128 scaled = static_cast<u128>(m) * 1000;
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
    unsigned milli;
    if (q >> 64 == 0) {  // 64-bit division: a 128-bit one is a library call
        const auto q64 = static_cast<uint64_t>(q);
        milli = static_cast<unsigned>(q64 % 1000);
        q = q64 / 1000;
    } else {
        milli = static_cast<unsigned>(q % 1000);
        q /= 1000;
    }
    *--p = static_cast<char>('0' + milli % 10);
    *--p = static_cast<char>('0' + milli / 10 % 10);
    *--p = static_cast<char>('0' + milli / 100);
    *--p = '.';
    if (q >> 64 == 0) {
        uint64_t w = static_cast<uint64_t>(q);
        do {
            *--p = static_cast<char>('0' + w % 10);
            w /= 10;
        } while (w);
    } else {
        u128 w = q;
        do {
            *--p = static_cast<char>('0' + static_cast<unsigned>(w % 10));
            w /= 10;
        } while (w);
    }
    if (bits >> 63)
        *--p = '-';
    return pad_to(out, p, static_cast<size_t>(end - p), width, align);
}

}  // namespace kdelay
