#include "stall/stall_profile.h"

#include <algorithm>
#include <map>
#include <utility>

namespace kdelay {

TimeBudget::Profile stall_profile(const kd_profile& kept, unsigned hz, const FramesOf& frames_of,
                                  const UnwoundOf& unwound, uint64_t start_ns, std::vector<TimedSample>* timed)
{
    const uint32_t n = std::min<uint32_t>(kept.taken, KD_PROFILE_SAMPLES);
    std::vector<SampleStacks> stacks(n);
    StackTallies tallies;
    for (uint32_t i = 0; i < n; ++i) {
        const kd_profile_sample& s = kept.samples[i];
        SampleStacks& st = stacks[i];
        st.kernel_stack = s.kernel_stack;
        st.user_pcs = unwound ? unwound(i, s.user_stack) : std::vector<uint64_t>{};
        st.user_stack = st.user_pcs.empty() ? s.user_stack : 0;
        StackTally& t = tallies[st];
        ++t.count;
        t.cpu_ns += uint64_t(s.cpu_us) * 1000;
    }
    std::map<SampleStacks, std::vector<std::string>> frames_of_stacks;
    TimeBudget::Profile p = profile_of(hz, tallies, frames_of, timed ? &frames_of_stacks : nullptr);
    p.samples = kept.taken;
    p.lost = kept.taken - n;
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

}  // namespace kdelay
