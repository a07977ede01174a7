#include "core/log2_hist.h"

namespace kdelay {

uint64_t Log2Hist::total() const
{
    uint64_t n = 0;
    for (uint64_t c : slots)
        n += c;
    return n;
}

uint64_t Log2Hist::percentile(double q) const
{
    const uint64_t n = total();
    if (n == 0)
        return 0;
    const double rank = q * static_cast<double>(n);
    double seen = 0;
    for (size_t s = 0; s < slots.size(); ++s) {
        if (slots[s] == 0)
            continue;
        if (seen + static_cast<double>(slots[s]) >= rank) {
            const double within = (rank - seen) / static_cast<double>(slots[s]);
            const double lo = static_cast<double>(low(s));
            const double hi = static_cast<double>(high(s));
            return static_cast<uint64_t>(lo + within * (hi - lo));
        }
        seen += static_cast<double>(slots[s]);
    }
    return high(slots.size() - 1);
}

}  // namespace kdelay
