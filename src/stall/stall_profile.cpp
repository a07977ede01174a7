#include "stall/stall_profile.h"

#include <algorithm>
#include <cerrno>
#include <map>
#include <utility>

namespace kdelay {

std::string function_frame(const std::string& frame)
{
    const size_t module = frame.rfind(" [");
    const size_t offset = frame.rfind("+0x", module);
    if (module == std::string::npos || offset == std::string::npos || frame.rfind("[unknown]", 0) == 0)
        return frame;
    return frame.substr(0, offset) + frame.substr(module);
}

namespace {

// get_stackid's -EFAULT: no stack of that side (a sample in user mode has
// no kernel stack). Any other error lost a stack that was there.
bool stack_lost(int id) { return id < 0 && id != -EFAULT; }

}  // namespace

TimeBudget::Profile stall_profile(const kd_profile& kept, unsigned hz, const FramesOf& frames_of)
{
    TimeBudget::Profile p;
    p.hz = hz;
    p.period_ns = hz ? 1'000'000'000ull / hz : 0;
    p.samples = kept.taken;
    const uint32_t n = std::min<uint32_t>(kept.taken, KD_PROFILE_SAMPLES);
    p.lost = kept.taken - n;
    std::map<std::pair<int, int>, uint64_t> by_ids;
    for (uint32_t i = 0; i < n; ++i) {
        const kd_profile_sample& s = kept.samples[i];
        if (stack_lost(s.kernel_stack) || stack_lost(s.user_stack))
            ++p.stacks_lost;
        ++by_ids[{s.kernel_stack, s.user_stack}];
    }
    std::map<std::vector<std::string>, uint64_t> by_frames;
    for (const auto& [ids, count] : by_ids) {
        std::vector<std::string> frames = frames_of(ids.first, ids.second);
        for (std::string& f : frames)
            f = function_frame(f);
        std::reverse(frames.begin(), frames.end());
        by_frames[std::move(frames)] += count;
    }
    for (auto& [frames, count] : by_frames)
        p.stacks.push_back(TimeBudget::Profile::Stack{count, frames});
    std::stable_sort(p.stacks.begin(), p.stacks.end(),
                     [](const auto& a, const auto& b) { return a.count > b.count; });
    return p;
}

}  // namespace kdelay
