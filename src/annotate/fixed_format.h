// "%.3f" for the microsecond columns, exact as printf and Python round (half
// to even on the double's exact binary value), without fmt's general float
// path, which was a fifth of annotate's time. Tested against fmt.
#pragma once

#include <cstddef>

namespace kdelay {

enum class Align { left, right };

// The most write_fixed3 writes: DBL_MAX has 309 integer digits.
inline constexpr size_t kFixed3Max = 320;

// Writes v with 3 decimals at out, padded with spaces to `width`; returns
// the end. out must have room for max(width, kFixed3Max) bytes.
char* write_fixed3(char* out, double v, size_t width, Align align);

}  // namespace kdelay
