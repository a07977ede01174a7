#include "stall/stack_copies.h"

#include <algorithm>
#include <cstring>

namespace kdelay {

namespace {

size_t bytes_of(const StackCopies::Interval& i)
{
    size_t n = 0;
    for (const auto& [sample, record] : i.samples)
        n += record.size();
    for (const auto& [start, record] : i.waits)
        n += record.size();
    return n;
}

}  // namespace

void StackCopies::erase(Intervals::iterator first, Intervals::iterator last)
{
    for (auto it = first; it != last; ++it)
        bytes_ -= bytes_of(it->second);
    by_interval_.erase(first, last);
}

void StackCopies::add(const void* data, size_t size)
{
    kd_stack_copy c;
    if (size < sizeof(c))
        return;
    std::memcpy(&c, data, sizeof(c));
    if (c.bytes > size - sizeof(c))
        return;
    // Intervals of the thread before gen - 1 were short, or read.
    erase(by_interval_.lower_bound({c.tid, 0}), by_interval_.lower_bound({c.tid, c.gen > 0 ? c.gen - 1 : 0}));
    Interval& interval = by_interval_[{c.tid, c.gen}];
    std::vector<uint8_t>& record =
        c.sample == KD_COPY_OF_WAIT ? interval.waits[c.wait_start] : interval.samples[c.sample];
    bytes_ -= record.size();
    const auto* bytes = static_cast<const uint8_t*>(data);
    record.assign(bytes, bytes + sizeof(c) + c.bytes);
    bytes_ += record.size();
}

StackCopies::Interval StackCopies::take(uint32_t tid, kd_gen_t gen)
{
    const auto it = by_interval_.find({tid, gen});
    if (it == by_interval_.end())
        return {};
    Interval out = std::move(it->second);
    bytes_ -= bytes_of(out);
    by_interval_.erase(it);
    return out;
}

void StackCopies::forget(uint32_t tid)
{
    const auto first = by_interval_.lower_bound({tid, 0});
    auto last = first;
    while (last != by_interval_.end() && last->first.first == tid)
        ++last;
    erase(first, last);
}

}  // namespace kdelay
