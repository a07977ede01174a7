// How each report kind prints in text: as the tables the text writer lays
// out, in order. A kind with nothing to show gives none; a Table is itself.
#pragma once

#include <functional>

#include "report/report.h"

namespace kdelay {

void for_each_text_table(const Section& section, const std::function<void(const Table&)>& print);

}  // namespace kdelay
