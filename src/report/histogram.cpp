#include "report/histogram.h"

#include <algorithm>
#include <fmt/format.h>

namespace kdelay {

std::vector<std::string> render_log2_hist(const Log2Hist& hist, const std::string& unit)
{
    std::vector<std::string> lines;
    size_t first = hist.slots.size(), last = 0;
    uint64_t max = 0;
    for (size_t s = 0; s < hist.slots.size(); ++s)
        if (hist.slots[s]) {
            first = std::min(first, s);
            last = s;
            max = std::max(max, hist.slots[s]);
        }
    if (max == 0)
        return lines;
    const int width = static_cast<int>(std::max<size_t>(fmt::format("{}", Log2Hist::high(last)).size(), 5));
    lines.push_back(fmt::format("{:>{}}{:{}} : count     distribution", unit, width + 3, "", width + 4));
    for (size_t s = first; s <= last; ++s) {
        const size_t stars = static_cast<size_t>(hist.slots[s] * 40 / max);
        lines.push_back(fmt::format("{:>{}} -> {:<{}} : {:<8} |{:<40}|", Log2Hist::low(s), width + 3,
                                    Log2Hist::high(s), width, hist.slots[s], std::string(stars, '*')));
    }
    return lines;
}

}  // namespace kdelay
