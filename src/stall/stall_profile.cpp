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

TimeBudget::Profile stall_profile(const kd_profile& kept, unsigned hz, const FramesOf& frames_of,
                                  const UnwoundOf& unwound, uint64_t start_ns, std::vector<TimedSample>* timed)
{
    TimeBudget::Profile p;
    p.hz = hz;
    p.period_ns = hz ? 1'000'000'000ull / hz : 0;
    p.samples = kept.taken;
    const uint32_t n = std::min<uint32_t>(kept.taken, KD_PROFILE_SAMPLES);
    p.lost = kept.taken - n;
    // Samples and CPU time by their stacks, then by function frames.
    struct Tally {
        uint64_t count = 0, cpu_ns = 0;
    };
    std::vector<SampleStacks> stacks(n);
    std::map<SampleStacks, Tally> by_stacks;
    for (uint32_t i = 0; i < n; ++i) {
        const kd_profile_sample& s = kept.samples[i];
        SampleStacks& st = stacks[i];
        st.kernel_stack = s.kernel_stack;
        st.user_pcs = unwound ? unwound(i, s.user_stack) : std::vector<uint64_t>{};
        st.user_stack = st.user_pcs.empty() ? s.user_stack : 0;
        if (stack_lost(st.kernel_stack) || stack_lost(st.user_stack))
            ++p.stacks_lost;
        Tally& t = by_stacks[st];
        ++t.count;
        t.cpu_ns += uint64_t(s.cpu_us) * 1000;
        p.sampled_ns += uint64_t(s.cpu_us) * 1000;
    }
    std::map<std::vector<std::string>, Tally> by_frames;
    std::map<SampleStacks, std::vector<std::string>> frames_of_stacks;
    for (const auto& [st, t] : by_stacks) {
        std::vector<std::string> frames = frames_of(st);
        for (std::string& f : frames)
            f = function_frame(f);
        std::reverse(frames.begin(), frames.end());
        Tally& sum = by_frames[frames];
        sum.count += t.count;
        sum.cpu_ns += t.cpu_ns;
        frames_of_stacks[st] = std::move(frames);
    }
    for (auto& [frames, sum] : by_frames)
        p.stacks.push_back(TimeBudget::Profile::Stack{sum.count, sum.cpu_ns, frames});
    std::stable_sort(p.stacks.begin(), p.stacks.end(), [](const auto& a, const auto& b) {
        return a.cpu_ns != b.cpu_ns ? a.cpu_ns > b.cpu_ns : a.count > b.count;
    });
    if (timed) {
        std::map<std::vector<std::string>, size_t> index;
        for (size_t i = 0; i < p.stacks.size(); ++i)
            index[p.stacks[i].frames] = i;
        for (uint32_t i = 0; i < n; ++i)
            timed->push_back({start_ns + uint64_t(kept.samples[i].at_us) * 1000, index[frames_of_stacks[stacks[i]]]});
        std::stable_sort(timed->begin(), timed->end(),
                         [](const TimedSample& a, const TimedSample& b) { return a.at_ns < b.at_ns; });
    }
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
