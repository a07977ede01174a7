#include "delay/window_profile.h"

#include <cerrno>
#include <cstring>

#include "delay_abi.h"
#include "loader/map_io.h"

namespace kdelay {

WindowProfile::WindowProfile(MapIo& maps, const DelayProgramParams& params, std::function<PidMap()> ids)
    : maps_(maps), hz_(params.features.profile_hz), ids_fn_(std::move(ids)), stacks_(maps, params.layout.regs_dwarf)
{
}

// In a PID namespace of kdelay's own, a process first seen is looked up
// again, at most once a second.
const PidMap& WindowProfile::ids_for(uint32_t tgid)
{
    const auto now = std::chrono::steady_clock::now();
    if (ids_fn_ && !ids_.knows_kernel(tgid) && now >= next_ids_) {
        ids_ = ids_fn_();
        next_ids_ = now + std::chrono::seconds(1);
    }
    return ids_;
}

void WindowProfile::add_copy(const void* data, size_t size)
{
    kd_stack_copy c;
    if (size < sizeof(c))
        return;
    std::memcpy(&c, data, sizeof(c));
    if (c.sample != KD_COPY_OF_WINDOW)
        return;
    const PidMap& ids = ids_for(c.tgid);
    stacks_.load(c.tgid, ids);
    SampleStacks st;
    st.kernel_stack = c.kernel_stack;
    st.user_pcs = stacks_.unwound(c.tgid, ids, data, size, -1);
    stacks_.name_now(c.tgid, ids, st.user_pcs);
    // None: a sample without user registers (no user stack, as
    // get_stackid's -EFAULT), or a copy that could not be unwound (lost).
    st.user_stack = !st.user_pcs.empty() ? 0 : c.base ? -1 : -EFAULT;
    Thread& t = threads_[c.tid];
    t.tgid = c.tgid;
    StackTally& tally = t.tallies[st];
    ++tally.count;
    tally.cpu_ns += uint64_t(c.cpu_us) * 1000;
}

void WindowProfile::load(const std::vector<uint32_t>& tgids)
{
    for (const uint32_t tgid : tgids)
        stacks_.load(tgid, ids_for(tgid));
}

void WindowProfile::name_counted_stacks(bool final)
{
    const auto now = std::chrono::steady_clock::now();
    if (!final && now < next_naming_)
        return;
    next_naming_ = now + std::chrono::seconds(1);
    for (const auto& [key, tally] : maps_.entries<kd_window_stacks, kd_window_tally>("window_profile"))
        if (key.user_stack >= 0 && named_.insert({key.tgid, key.user_stack}).second) {
            const PidMap& ids = ids_for(key.tgid);
            stacks_.load(key.tgid, ids);
            stacks_.name_now(key.tgid, ids, maps_.stack("stack_traces", key.user_stack));
        }
}

std::map<uint32_t, TimeBudget::Profile> WindowProfile::take()
{
    name_counted_stacks(true);
    for (const auto& [key, tally] : maps_.entries<kd_window_stacks, kd_window_tally>("window_profile")) {
        Thread& t = threads_[key.tid];
        t.tgid = key.tgid;
        StackTally& sum = t.tallies[SampleStacks{key.kernel_stack, key.user_stack, {}}];
        sum.count += tally.count;
        sum.cpu_ns += tally.cpu_us * 1000;
    }
    std::map<uint32_t, TimeBudget::Profile> out;
    for (const auto& [tid, thread] : threads_) {
        ProfileModules modules;
        const uint32_t tgid = thread.tgid;
        const PidMap& ids = ids_for(tgid);
        TimeBudget::Profile p = profile_of(hz_, thread.tallies, [&](const SampleStacks& st) {
            return stacks_.frames(tgid, ids, st, modules);
        });
        p.modules = std::move(modules);
        out.emplace(tid, std::move(p));
    }
    threads_.clear();
    named_.clear();
    // Named: a process gone since lets go of its files.
    stacks_.forget_gone();
    return out;
}

}  // namespace kdelay
