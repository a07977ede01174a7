// A stall's kept samples grouped into its profile (src/stall/stall_profile.cpp):
// by function frames, outermost first, with what the store and the stack
// table lost.
#include <gtest/gtest.h>

#include <cerrno>
#include <map>
#include <memory>

#include "stall/stall_profile.h"

namespace kdelay {
namespace {

TEST(StallProfile, AFrameIsItsFunctionWithoutTheOffset)
{
    EXPECT_EQ(function_frame("spin_here(unsigned long)+0x1f [kd_where]"), "spin_here(unsigned long) [kd_where]");
    EXPECT_EQ(function_frame("do_syscall_64+0x82 [kernel]"), "do_syscall_64 [kernel]");
    EXPECT_EQ(function_frame("[unknown] 0x7f5cade23c01"), "[unknown] 0x7f5cade23c01");
    EXPECT_EQ(function_frame("Map::operator[](int)+0x1 [app]"), "Map::operator[](int) [app]");
}

// The stack table of the test: id -> frames, innermost first; an unwound
// user stack's return addresses, each a frame.
std::vector<std::string> frames_of(const SampleStacks& st)
{
    const std::map<uint64_t, std::string> code = {
        {0x100, "leaf+0x18 [app]"}, {0x200, "caller+0x20 [app]"}, {0x300, "main+0x5 [app]"}};
    const std::map<int, std::vector<std::string>> table = {
        {1, {"leaf+0x10 [app]", "caller+0x20 [app]", "main+0x5 [app]"}},
        {2, {"leaf+0x14 [app]", "caller+0x20 [app]", "main+0x5 [app]"}},  // another instruction of leaf
        {3, {"read+0x9 [libc.so.6]", "main+0x9 [app]"}},
        {7, {"chacha+0x1 [kernel]", "do_syscall_64+0x2 [kernel]"}},
    };
    std::vector<std::string> out;
    for (const int id : {st.kernel_stack, st.user_stack})
        if (const auto it = table.find(id); it != table.end())
            out.insert(out.end(), it->second.begin(), it->second.end());
    for (const uint64_t pc : st.user_pcs)
        out.push_back(code.at(pc));
    return out;
}

std::unique_ptr<kd_profile> kept(std::initializer_list<kd_profile_sample> samples, uint32_t taken)
{
    auto p = std::make_unique<kd_profile>();
    uint32_t i = 0;
    for (const kd_profile_sample& s : samples)
        p->samples[i++] = s;
    p->taken = taken;
    return p;
}

TEST(StallProfile, SamplesGroupByFunctionsOutermostFirstUserAboveKernelByCpuTime)
{
    // The read's sample stands for 5 periods: its CPU's timer fired late.
    const auto p = kept({{-EFAULT, 1, 40, 10'000},
                         {-EFAULT, 2, 10, 10'000},
                         {-EFAULT, 1, 20, 10'000},
                         {7, 3, 30, 50'000},
                         {-EEXIST, 1, 50, 10'000}},
                        5);
    std::vector<TimedSample> timed;
    const TimeBudget::Profile profile = stall_profile(*p, 99, frames_of, {}, 1'000'000, &timed);
    EXPECT_EQ(profile.hz, 99u);
    EXPECT_EQ(profile.period_ns, 10'101'010u);
    EXPECT_EQ(profile.samples, 5u);
    EXPECT_EQ(profile.lost, 0u);
    EXPECT_EQ(profile.sampled_ns, 90'000'000u);
    EXPECT_EQ(profile.stacks_lost, 1u) << "-EEXIST lost a kernel stack; -EFAULT is a user-mode sample";
    ASSERT_EQ(profile.stacks.size(), 2u);
    // The read first, by CPU time, though it has one sample.
    EXPECT_EQ(profile.stacks[0].count, 1u);
    EXPECT_EQ(profile.stacks[0].cpu_ns, 50'000'000u);
    EXPECT_EQ(profile.stacks[0].frames, (std::vector<std::string>{"main [app]", "read [libc.so.6]",
                                                                  "do_syscall_64 [kernel]", "chacha [kernel]"}));
    // Two instructions of leaf, and the sample whose kernel stack was lost
    // (it was in user mode as far as the user stack tells).
    EXPECT_EQ(profile.stacks[1].count, 4u);
    EXPECT_EQ(profile.stacks[1].cpu_ns, 40'000'000u);
    EXPECT_EQ(profile.stacks[1].frames, (std::vector<std::string>{"main [app]", "caller [app]", "leaf [app]"}));
    // Each sample in time order, at the interval's start and its offset,
    // with its stack in the profile.
    ASSERT_EQ(timed.size(), 5u);
    const std::vector<uint64_t> at = {1'010'000, 1'020'000, 1'030'000, 1'040'000, 1'050'000};
    const std::vector<size_t> stack = {1, 1, 0, 1, 1};
    for (size_t i = 0; i < timed.size(); ++i) {
        EXPECT_EQ(timed[i].at_ns, at[i]);
        EXPECT_EQ(timed[i].stack, stack[i]);
    }
}

TEST(StallProfile, AnUnwoundUserStackStandsForItsStackIdAndGroupsByFunctions)
{
    // Sample 1's frame-pointer walk was lost to its hash slot, sample 2's
    // stopped short; both were unwound from their copies to leaf's stack.
    const auto p = kept({{-EFAULT, 1, 10, 10'000}, {-EFAULT, -EEXIST, 20, 10'000}, {-EFAULT, 3, 30, 10'000}}, 3);
    const UnwoundOf unwound = [](uint32_t sample, int) {
        return sample == 0 ? std::vector<uint64_t>{} : std::vector<uint64_t>{0x100, 0x200, 0x300};
    };
    const TimeBudget::Profile profile = stall_profile(*p, 99, frames_of, unwound);
    EXPECT_EQ(profile.stacks_lost, 0u) << "the unwound stack stands for the one lost";
    ASSERT_EQ(profile.stacks.size(), 1u);
    EXPECT_EQ(profile.stacks[0].count, 3u);
    EXPECT_EQ(profile.stacks[0].frames, (std::vector<std::string>{"main [app]", "caller [app]", "leaf [app]"}));
}

TEST(StallProfile, FoldedStacksAreOneLineAStackOutermostFirst)
{
    TimeBudget::Profile p;
    p.stacks = {{4, 40, {"main [app]", "caller [app]", "leaf [app]"}}, {2, 20, {"main [app]", "odd;name [app]"}}, {1, 10, {}}};
    EXPECT_EQ(folded_stacks(p), "main [app];caller [app];leaf [app] 4\n"
                                "main [app];odd:name [app] 2\n"
                                "[stack lost] 1\n");
}

TEST(StallProfile, SamplesPastTheStoreAreLost)
{
    auto p = std::make_unique<kd_profile>();
    for (kd_profile_sample& s : p->samples)
        s = {-EFAULT, 1, 0, 10'000};
    p->taken = KD_PROFILE_SAMPLES + 40;
    const TimeBudget::Profile profile = stall_profile(*p, 99, frames_of);
    EXPECT_EQ(profile.samples, KD_PROFILE_SAMPLES + 40u);
    EXPECT_EQ(profile.lost, 40u);
    ASSERT_EQ(profile.stacks.size(), 1u);
    EXPECT_EQ(profile.stacks[0].count, static_cast<uint64_t>(KD_PROFILE_SAMPLES));
}

}  // namespace
}  // namespace kdelay
