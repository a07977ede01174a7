// log2 histograms as BCC's tools print them.
#pragma once

#include <string>
#include <vector>

#include "core/log2_hist.h"

namespace kdelay {

// BCC's print_log2_hist layout: a header, then one line per slot from the
// first to the last non-empty one, with a 40-character bar.
std::vector<std::string> render_log2_hist(const Log2Hist& hist, const std::string& unit);

}  // namespace kdelay
