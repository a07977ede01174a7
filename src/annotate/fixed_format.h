// "%.3f" for the microsecond columns, exact as printf and Python round (half
// to even on the double's exact binary value), without fmt's general float
// path, which was a fifth of annotate's time. Tested against fmt.
#pragma once

#include <fmt/format.h>

namespace kdelay {

enum class Align { left, right };

// Appends v with 3 decimals, padded with spaces to `width`.
void append_fixed3(fmt::memory_buffer& out, double v, size_t width, Align align);

}  // namespace kdelay
