// make_budget(): from the program's per-thread state and the window to the
// report's budget, without root.
#include <gtest/gtest.h>

#include "delay/budget.h"
#include "sys/syscall_names.h"

using namespace kdelay;

namespace {

const BudgetWindow kWindow{1'000'000'000, 1'100'000'000};  // 100 ms

uint64_t blocked_in(const TimeBudget& b, int64_t nr)
{
    for (const auto& part : b.blocked)
        if (part.nr == nr)
            return part.ns;
    return 0;
}

kd_budget state(uint32_t s, uint64_t since)
{
    kd_budget b{};
    b.state = s;
    b.since = since;
    return b;
}

}  // namespace

TEST(Budget, TheStateAtTheEndRunsToTheEndOfTheWindow)
{
    kd_budget b = state(KD_B_RUNNING, 1'060'000'000);
    b.ready_ns = 10'000'000;
    b.blocked_nosys_ns = 0;
    const std::map<uint32_t, uint64_t> blocked = {{202, 50'000'000}};  // futex
    const TimeBudget t = make_budget(b, kWindow, blocked, 1'000, nullptr);
    EXPECT_EQ(t.window_ns, 100'000'000u);
    EXPECT_EQ(t.running_ns, 40'000'000u);  // from 60 ms to the end
    EXPECT_EQ(t.ready_ns, 10'000'000u);
    EXPECT_EQ(t.blocked_ns, 50'000'000u);
    EXPECT_EQ(t.irq_ns, 1'000u);
    ASSERT_EQ(t.blocked.size(), 1u);
    EXPECT_EQ(t.blocked[0].name, syscall_name(202));
    EXPECT_EQ(t.remainder_ns, 0);
}

TEST(Budget, SinceZeroMeansSinceTheWindowBegan)
{
    const TimeBudget t = make_budget(state(KD_B_READY, 0), kWindow, {}, 0, nullptr);
    EXPECT_EQ(t.ready_ns, 100'000'000u);
    EXPECT_EQ(t.remainder_ns, 0);
}

TEST(Budget, AWaitStillOpenAtTheEndIsBlamedAsOpen)
{
    kd_budget b = state(KD_B_READY, 1'070'000'000);
    b.ready_ns = 5'000'000;  // an ended wait, blamed in the kernel
    const TimeBudget t = make_budget(b, kWindow, {}, 0, nullptr);
    EXPECT_EQ(t.ready_ns, 35'000'000u);
    ASSERT_EQ(t.ready_blame.size(), 1u);
    EXPECT_EQ(t.ready_blame[0].kind, HolderKind::open);
    EXPECT_EQ(t.ready_blame[0].ns, 30'000'000u);  // from 70 ms to the end
    EXPECT_TRUE(make_budget(state(KD_B_RUNNING, 1'070'000'000), kWindow, {}, 0, nullptr).ready_blame.empty());
}

TEST(Budget, BlockedAtTheEndGoesToItsSyscallOrOutsideAny)
{
    kd_budget b = state(KD_B_BLOCKED, 1'090'000'000);
    b.blocked_nr = 7;  // poll
    b.running_ns = 90'000'000;
    TimeBudget t = make_budget(b, kWindow, {}, 0, nullptr);
    EXPECT_EQ(blocked_in(t, 7), 10'000'000u);

    b.blocked_nr = KD_B_NO_SYSCALL;
    t = make_budget(b, kWindow, {}, 0, nullptr);
    EXPECT_EQ(blocked_in(t, TimeBudget::kOutsideSyscalls), 10'000'000u);
    EXPECT_EQ(t.blocked[0].name, "outside syscalls");
}

TEST(Budget, ASyscallEnteredBeforeTheWindowIsNamedByProc)
{
    kd_budget b = state(KD_B_BLOCKED, 1'050'000'000);
    b.blocked_nr = KD_B_SYSCALL_UNKNOWN;
    b.pending_ns = 30'000'000;  // woken once, then blocked again in the same call
    b.running_ns = 20'000'000;
    ThreadState now;
    now.state = 'S';
    now.syscall = 0;  // read
    const TimeBudget t = make_budget(b, kWindow, {}, 0, &now);
    EXPECT_EQ(blocked_in(t, 0), 80'000'000u);
    EXPECT_EQ(blocked_in(t, TimeBudget::kUnknownSyscall), 0u);
    EXPECT_EQ(t.remainder_ns, 0);

    // Gone, or running now: it stays unknown, and is still counted.
    const TimeBudget gone = make_budget(b, kWindow, {}, 0, nullptr);
    EXPECT_EQ(blocked_in(gone, TimeBudget::kUnknownSyscall), 80'000'000u);
    EXPECT_EQ(gone.blocked[0].name, "unknown syscall");
}

TEST(Budget, BornAndDiedInTheWindowIsNotAliveOutsideItsLife)
{
    kd_budget b = state(KD_B_DEAD, 1'070'000'000);
    b.born_ns = 1'020'000'000;
    b.died_ns = 1'070'000'000;
    b.running_ns = 50'000'000;
    const TimeBudget t = make_budget(b, kWindow, {}, 0, nullptr);
    EXPECT_EQ(t.not_alive_ns, 50'000'000u);  // 20 ms before, 30 ms after
    EXPECT_EQ(t.running_ns, 50'000'000u);
    EXPECT_EQ(t.remainder_ns, 0);
}

TEST(Budget, WhatThePartsMissIsShownAsRemainder)
{
    kd_budget b = state(KD_B_RUNNING, 1'100'000'000);  // switched in at the very end
    b.ready_ns = 60'000'000;                          // a missed event: 40 ms unaccounted
    const TimeBudget t = make_budget(b, kWindow, {}, 0, nullptr);
    EXPECT_EQ(t.remainder_ns, 40'000'000);

    b.ready_ns = 130'000'000;  // and more than the window: negative
    EXPECT_EQ(make_budget(b, kWindow, {}, 0, nullptr).remainder_ns, -30'000'000);
}

TEST(Budget, AThreadWithNoEventTakesItsStateFromProcWithoutAnIterator)
{
    ThreadState now;
    now.state = 'S';
    now.syscall = 202;
    TimeBudget t = budget_from_proc(now, kWindow, nullptr);
    EXPECT_EQ(t.source, TimeBudget::Source::proc);
    EXPECT_EQ(blocked_in(t, 202), 100'000'000u);

    now.state = 'R';
    t = budget_from_proc(now, kWindow, nullptr);
    EXPECT_EQ(t.running_ns, 100'000'000u);

    now.state = 'T';
    t = budget_from_proc(now, kWindow, nullptr);
    EXPECT_EQ(t.stopped_ns, 100'000'000u);
    EXPECT_EQ(t.remainder_ns, 0);
}

// The task iterator at the window's end tells a thread on its CPU from one
// queued behind others (a starved thread, /proc's R either way), and how
// long before the window its wait began.
TEST(Budget, AThreadWithNoEventQueuedAtTheEndWasReadyAllWindow)
{
    ThreadState now;
    now.state = 'R';
    kd_task_now queued{};
    queued.at_ns = kWindow.end_ns + 1'000'000;
    queued.waiting_ns = 150'000'000;  // since 49 ms before the window
    TimeBudget t = budget_from_proc(now, kWindow, &queued);
    EXPECT_EQ(t.source, TimeBudget::Source::iterator);
    EXPECT_EQ(t.ready_ns, 100'000'000u);
    EXPECT_EQ(t.running_ns, 0u);
    EXPECT_EQ(t.ready_before_ns, 49'000'000u);
    ASSERT_EQ(t.ready_blame.size(), 1u);
    EXPECT_EQ(t.ready_blame[0].kind, HolderKind::open);
    EXPECT_EQ(t.remainder_ns, 0);

    kd_task_now on_cpu = queued;
    on_cpu.on_cpu = 1;
    on_cpu.waiting_ns = 0;
    t = budget_from_proc(now, kWindow, &on_cpu);
    EXPECT_EQ(t.running_ns, 100'000'000u);
    EXPECT_EQ(t.ready_ns, 0u);


    now.state = 'S';
    now.syscall = 7;
    kd_task_now asleep = queued;
    asleep.state = 1;
    t = budget_from_proc(now, kWindow, &asleep);
    EXPECT_EQ(blocked_in(t, 7), 100'000'000u);
}

TEST(Budget, BlockedPartsAreSortedByTime)
{
    kd_budget b = state(KD_B_RUNNING, 1'100'000'000);
    b.blocked_nosys_ns = 5'000'000;
    const std::map<uint32_t, uint64_t> blocked = {{0, 20'000'000}, {202, 75'000'000}};
    const TimeBudget t = make_budget(b, kWindow, blocked, 0, nullptr);
    ASSERT_EQ(t.blocked.size(), 3u);
    EXPECT_EQ(t.blocked[0].nr, 202);
    EXPECT_EQ(t.blocked[1].nr, 0);
    EXPECT_EQ(t.blocked[2].nr, TimeBudget::kOutsideSyscalls);
    EXPECT_EQ(t.blocked_ns, 100'000'000u);
}

// The part of a wait before the window, at a switch-in in the window, at
// its opening, and dated before it by a stale run-queue clock (once an
// underflow that dropped the whole wait).
TEST(Budget, AWaitBeforeTheWindowIsAllOfItWhenTheSwitchInIsDatedBefore)
{
    const __u64 start = 1'000'000;
    EXPECT_EQ(kd_wait_before_window(start + 300, start, 1000), 700u);
    EXPECT_EQ(kd_wait_before_window(start + 1000, start, 1000), 0u);
    EXPECT_EQ(kd_wait_before_window(start + 5000, start, 1000), 0u) << "queued inside the window";
    EXPECT_EQ(kd_wait_before_window(start, start, 1000), 1000u);
    EXPECT_EQ(kd_wait_before_window(start - 200, start, 1000), 1000u) << "a stale clock";
    EXPECT_EQ(kd_wait_before_window(start - 200, start, 0), 0u);
}

// READY's throttled part: the program's count of ended waits, plus the
// part of a wait still open at the end that the task iterator saw
// throttled; the blame covers the queued rest only. Where the kernel does
// not count it, the part is absent, not 0.
TEST(Budget, AWaitsThrottledPartIsOfReadyAndLeftOutOfItsBlame)
{
    kd_budget b = state(KD_B_READY, 1'060'000'000);  // open for the last 40 ms
    b.running_ns = 20'000'000;
    b.ready_ns = 40'000'000;
    b.throttled_ns = 30'000'000;
    kd_task_now kernel{};
    kernel.state = 0;
    kernel.throttled_ns = 35'000'000;
    TimeBudget t = make_budget(b, kWindow, {}, 0, nullptr, &kernel, BudgetParts{true, true});
    EXPECT_EQ(t.ready_ns, 80'000'000u);
    ASSERT_TRUE(t.throttled_ns.has_value());
    EXPECT_EQ(*t.throttled_ns, 65'000'000u);
    ASSERT_EQ(t.ready_blame.size(), 1u);
    EXPECT_EQ(t.ready_blame[0].kind, HolderKind::open);
    EXPECT_EQ(t.ready_blame[0].ns, 5'000'000u);
    ASSERT_TRUE(t.steal_ns.has_value());
    EXPECT_EQ(t.remainder_ns, 0);

    // Seen throttled longer than the wait is open: no more than the wait.
    kernel.throttled_ns = 90'000'000;
    t = make_budget(b, kWindow, {}, 0, nullptr, &kernel, BudgetParts{true, true});
    EXPECT_EQ(*t.throttled_ns, 70'000'000u);
    EXPECT_TRUE(t.ready_blame.empty());

    t = make_budget(b, kWindow, {}, 0, nullptr, &kernel, BudgetParts{});
    EXPECT_FALSE(t.throttled_ns.has_value());
    EXPECT_FALSE(t.steal_ns.has_value());
    EXPECT_EQ(t.ready_blame[0].ns, 40'000'000u);
}

// The kernel side's arithmetic (delay_abi.h): a group run queue's throttled
// total counts the throttle under way only while throttle_count says so
// (5.10 leaves its start set after it ends), and a counter's growth is a
// part of a wait or a run never longer than it: the steal clock's growth
// over a run, the throttled total's over a wait.
TEST(Budget, ThrottledTotalsAndPartsOfAWaitOrARun)
{
    EXPECT_EQ(kd_throttled_total(500, 0, 0, 10'000), 500u);
    EXPECT_EQ(kd_throttled_total(500, 9'000, 1, 10'000), 1'500u);
    EXPECT_EQ(kd_throttled_total(500, 9'000, 0, 10'000), 500u);     // ended: its start left behind
    EXPECT_EQ(kd_throttled_total(500, 11'000, 2, 10'000), 500u);    // a clock behind the start
    EXPECT_EQ(kd_part_of(1'000, 1'400, 1'000), 400u);
    EXPECT_EQ(kd_part_of(1'000, 3'000, 1'000), 1'000u);  // no more than the run
    EXPECT_EQ(kd_part_of(1'000, 900, 1'000), 0u);        // a counter never goes back
    // Steal: a run of 4 ms in which the vCPU's steal clock grew by 1.5 ms.
    EXPECT_EQ(kd_part_of(7'000'000, 8'500'000, 4'000'000), 1'500'000u);
}
