#include "profile/profile.h"

#include <algorithm>
#include <cerrno>

namespace kdelay {

std::string function_frame(const std::string& frame)
{
    const size_t module = frame.rfind(" [");
    const size_t offset = frame.rfind("+0x", module);
    if (module == std::string::npos || offset == std::string::npos || frame.rfind("[unknown]", 0) == 0)
        return frame;
    return frame.substr(0, offset) + frame.substr(module);
}

bool stack_lost(int id) { return id < 0 && id != -EFAULT; }

TimeBudget::Profile profile_of(unsigned hz, const StackTallies& tallies, const FramesOf& frames_of,
                               std::map<SampleStacks, std::vector<std::string>>* frames_of_stacks)
{
    TimeBudget::Profile p;
    p.hz = hz;
    p.period_ns = hz ? 1'000'000'000ull / hz : 0;
    std::map<std::vector<std::string>, StackTally> by_frames;
    for (const auto& [st, t] : tallies) {
        p.samples += t.count;
        p.sampled_ns += t.cpu_ns;
        if (stack_lost(st.kernel_stack) || stack_lost(st.user_stack))
            p.stacks_lost += t.count;
        std::vector<std::string> frames = frames_of(st);
        for (std::string& f : frames)
            f = function_frame(f);
        std::reverse(frames.begin(), frames.end());
        StackTally& sum = by_frames[frames];
        sum.count += t.count;
        sum.cpu_ns += t.cpu_ns;
        if (frames_of_stacks)
            (*frames_of_stacks)[st] = std::move(frames);
    }
    for (auto& [frames, sum] : by_frames)
        p.stacks.push_back(TimeBudget::Profile::Stack{sum.count, sum.cpu_ns, frames});
    std::stable_sort(p.stacks.begin(), p.stacks.end(), [](const auto& a, const auto& b) {
        return a.cpu_ns != b.cpu_ns ? a.cpu_ns > b.cpu_ns : a.count > b.count;
    });
    return p;
}

std::string folded_stacks(const TimeBudget::Profile& profile)
{
    std::string out;
    for (const auto& stack : profile.stacks) {
        std::string line;
        for (const std::string& frame : stack.frames) {
            if (!line.empty())
                line += ';';
            for (const char c : frame)
                line += c == ';' ? ':' : c == '\n' ? ' ' : c;
        }
        out += (line.empty() ? std::string("[stack lost]") : line) + ' ' + std::to_string(stack.count) + '\n';
    }
    return out;
}

}  // namespace kdelay
