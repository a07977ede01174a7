#include "delay/budget.h"

#include <algorithm>

#include "sys/syscall_names.h"

namespace kdelay {
namespace {

// Blocked time, by syscall number or one of TimeBudget's two buckets.
using BlockedBy = std::map<int64_t, uint64_t>;

// Where /proc says a thread is now: its state's bucket in the budget.
void add_proc_state(TimeBudget& t, BlockedBy& blocked, const ThreadState& now, uint64_t ns)
{
    switch (now.state) {
    case 'R':
        t.running_ns += ns;
        break;
    case 'T':
    case 't':
        t.stopped_ns += ns;
        break;
    default:  // S, D, I: asleep
        blocked[now.syscall >= -1 ? now.syscall : TimeBudget::kUnknownSyscall] += ns;
    }
}

void finish(TimeBudget& t, const BlockedBy& blocked, const BudgetWindow& w)
{
    for (const auto& [nr, ns] : blocked) {
        if (!ns)
            continue;
        std::string name = nr == TimeBudget::kOutsideSyscalls ? "outside syscalls"
                           : nr == TimeBudget::kUnknownSyscall ? "unknown syscall"
                                                               : syscall_name(static_cast<uint32_t>(nr));
        t.blocked.push_back({nr, std::move(name), ns});
        t.blocked_ns += ns;
    }
    std::stable_sort(t.blocked.begin(), t.blocked.end(),
                     [](const TimeBudget::Blocked& a, const TimeBudget::Blocked& b) { return a.ns > b.ns; });
    t.window_ns = w.length();
    const uint64_t covered = t.running_ns + t.ready_ns + t.blocked_ns + t.stopped_ns + t.not_alive_ns;
    t.remainder_ns = static_cast<int64_t>(t.window_ns) - static_cast<int64_t>(covered);
}

uint64_t clipped(uint64_t from, uint64_t to) { return to > from ? to - from : 0; }

// A wait for a CPU of ns still open at the window's end: READY. Its holders
// are named when it ends; until then it is shown as open, so that the
// blame adds up to READY's queued part. Its throttled part so far is the
// task iterator's (kernel; none without it).
void add_open_wait(TimeBudget& t, const kd_task_now* kernel, uint64_t ns)
{
    const uint64_t throttled = t.throttled_ns && kernel ? std::min<uint64_t>(kernel->throttled_ns, ns) : 0;
    t.ready_ns += ns;
    if (t.throttled_ns)
        *t.throttled_ns += throttled;
    if (ns > throttled)
        t.ready_blame.push_back({{HolderKind::open, 0, 0, ""}, ns - throttled});
}

// A thread that never changed state in the window, for ns of it: in the
// state the task iterator found it in at the end (kernel), or /proc's.
void add_state_at_end(TimeBudget& t, BlockedBy& blocked, const ThreadState& now, const kd_task_now* kernel,
                      const BudgetWindow& w, uint64_t ns)
{
    // On its CPU when kdelay reads it, just after the window: RUNNING. (Its
    // last arrival after the window does not tell a thread that waited all
    // through it from one that ran and was preempted since.)
    if (kernel && kernel->state == 0 && !kernel->on_cpu) {
        // Queued all along, behind others: READY, still open at the end.
        add_open_wait(t, kernel, ns);
        t.ready_before_ns = kd_wait_before_window(kernel->at_ns, w.start_ns, kernel->waiting_ns);
    } else if (kernel && kernel->state == 0) {
        t.running_ns += ns;
    } else {
        add_proc_state(t, blocked, now, ns);
    }
}

}  // namespace

TimeBudget make_budget(const kd_budget& b, const BudgetWindow& w, const std::map<uint32_t, uint64_t>& blocked_ns,
                       uint64_t irq_ns, const ThreadState* now, const kd_task_now* kernel, BudgetParts parts)
{
    TimeBudget t;
    BlockedBy blocked;
    t.running_ns = b.running_ns;
    t.ready_ns = b.ready_ns;
    if (parts.throttled)
        t.throttled_ns = b.throttled_ns;
    if (parts.steal)
        t.steal_ns = b.steal_ns;
    t.ready_before_ns = b.ready_before_ns;
    t.stopped_ns = b.stopped_ns;
    t.irq_ns = irq_ns;
    for (const auto& [nr, ns] : blocked_ns)
        blocked[nr] += ns;
    blocked[TimeBudget::kOutsideSyscalls] += b.blocked_nosys_ns;

    // The state the thread is still in at the end of the window.
    const uint64_t open = clipped(b.since ? b.since : w.start_ns, w.end_ns);
    switch (b.state) {
    case KD_B_RUNNING:
        t.running_ns += open;
        break;
    case KD_B_READY:
        add_open_wait(t, kernel, open);
        break;
    case KD_B_STOPPED:
        t.stopped_ns += open;
        break;
    case KD_B_BLOCKED:
        if (b.blocked_nr == KD_B_NO_SYSCALL)
            blocked[TimeBudget::kOutsideSyscalls] += open;
        else if (b.blocked_nr == KD_B_SYSCALL_UNKNOWN)
            blocked[TimeBudget::kUnknownSyscall] += open;
        else
            blocked[b.blocked_nr] += open;
        break;
    case KD_B_UNKNOWN:  // it never changed state: where it is now, since the start
        if (now)
            add_state_at_end(t, blocked, *now, kernel, w, open);
        break;
    default:  // KD_B_DEAD: counted below
        break;
    }
    // Blocked in a syscall entered before the window that has not returned:
    // /proc names it while the thread still sleeps in it.
    if (b.pending_ns)
        blocked[now && now->state != 'R' && now->syscall >= -1 ? now->syscall : TimeBudget::kUnknownSyscall] +=
            b.pending_ns;
    if (b.state == KD_B_BLOCKED && b.blocked_nr == KD_B_SYSCALL_UNKNOWN && now && now->syscall >= -1) {
        blocked[now->syscall] += blocked[TimeBudget::kUnknownSyscall];
        blocked.erase(TimeBudget::kUnknownSyscall);
    }
    if (b.born_ns)
        t.not_alive_ns += clipped(w.start_ns, b.born_ns);
    if (b.died_ns)
        t.not_alive_ns += clipped(b.died_ns, w.end_ns);
    t.not_alive_ns += b.between_lives_ns;
    finish(t, blocked, w);
    return t;
}

TimeBudget budget_from_proc(const ThreadState& now, const BudgetWindow& w, const kd_task_now* kernel,
                            BudgetParts parts)
{
    TimeBudget t;
    if (parts.throttled)
        t.throttled_ns = 0;
    if (parts.steal)
        t.steal_ns = 0;
    BlockedBy blocked;
    t.source = kernel ? TimeBudget::Source::iterator : TimeBudget::Source::proc;
    add_state_at_end(t, blocked, now, kernel, w, w.length());
    finish(t, blocked, w);
    return t;
}

void name_throttling_limits(Sample& sample, CpuLimitWatch& limits)
{
    std::map<uint32_t, std::optional<CpuLimit>> by_process;
    for (ThreadSample& t : sample.threads) {
        if (!t.budget || !t.budget->throttled_ns || !*t.budget->throttled_ns || !t.pid)
            continue;
        auto found = by_process.find(t.pid);
        if (found == by_process.end())
            found = by_process.emplace(t.pid, limits.throttled(static_cast<pid_t>(t.pid))).first;
        if (found->second) {
            t.budget->throttled_by = found->second->cgroup;
            t.budget->throttled_by_cpu_max = found->second->cpu_max();
        }
    }
}

}  // namespace kdelay
