// A log2 histogram, as BCC's bpf_log2l() fills it, with percentile estimates.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace kdelay {

// Slot s counts values in [(1 << s) >> 1, (1 << s) - 1].
struct Log2Hist {
    std::array<uint64_t, 65> slots{};

    uint64_t total() const;
    static uint64_t low(size_t slot) { return slot == 0 ? 0 : (uint64_t{1} << (slot - 1)); }
    static uint64_t high(size_t slot) { return slot == 0 ? 0 : (slot >= 64 ? UINT64_MAX : (uint64_t{1} << slot) - 1); }
    // The q-quantile (0 < q <= 1), interpolated linearly within its slot.
    uint64_t percentile(double q) const;
};

}  // namespace kdelay
