// --stack-copy: the copies of user stacks the kernel side sends for the
// samples of each thread's intervals, kept until the interval is known to
// be a stall (then unwound) or not (then dropped).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include <linux/types.h>

#include "delay_abi.h"

namespace kdelay {

class StackCopies {
public:
    // One record of the stack_copies ring (a kd_stack_copy and its bytes).
    // A thread's interval gen lets go of its intervals before gen - 1: a
    // thread records one interval while kdelay reads the one before.
    void add(const void* data, size_t size);
    // The copies of an interval: its samples' by index in its store, its
    // kept waits' by when the wait began.
    struct Interval {
        std::map<uint32_t, std::vector<uint8_t>> samples;
        std::map<uint64_t, std::vector<uint8_t>> waits;
    };
    // The copies of thread tid's interval gen; they go.
    Interval take(uint32_t tid, kd_gen_t gen);
    // The thread is gone.
    void forget(uint32_t tid);
    size_t bytes() const { return bytes_; }

private:
    using Intervals = std::map<std::pair<uint32_t, kd_gen_t>, Interval>;
    void erase(Intervals::iterator first, Intervals::iterator last);
    Intervals by_interval_;
    size_t bytes_ = 0;
};

}  // namespace kdelay
