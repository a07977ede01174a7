// The per-thread time budget, from the delay program's per-thread state
// (struct kd_budget) and the window's bounds, or from /proc for a thread
// that showed no event in the window.
#pragma once

#include <cstdint>
#include <map>

#include <linux/types.h>

#include "delay_abi.h"
#include "delay/sample.h"
#include "sys/cpu_limit.h"
#include "sys/process.h"

namespace kdelay {

struct BudgetWindow {
    uint64_t start_ns = 0;  // CLOCK_MONOTONIC
    uint64_t end_ns = 0;
    uint64_t length() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};

// What the running kernel lets the program count of READY's and
// RUNNING's parts (KernelLayout's throttle and rq_steal).
struct BudgetParts {
    bool throttled = false;
    bool steal = false;
};

// blocked_ns: the thread's time blocked per syscall number (kd_syscall).
// irq_ns: its hard and soft IRQ time, part of running. now: what /proc
// shows of it at the end, when it is still there; it settles the state of
// a thread the program never saw change, and pending blocked time.
TimeBudget make_budget(const kd_budget& b, const BudgetWindow& w, const std::map<uint32_t, uint64_t>& blocked_ns,
                       uint64_t irq_ns, const ThreadState* now, const kd_task_now* kernel = nullptr,
                       BudgetParts parts = {});

// A thread with no event in the window: the whole window in the state it
// was in at the end. kernel is the task iterator's record of it then,
// which tells a thread on its CPU from one waiting for it (and since
// when); nullptr where the kernel has no task iterator: /proc's state.
TimeBudget budget_from_proc(const ThreadState& now, const BudgetWindow& w, const kd_task_now* kernel,
                            BudgetParts parts = {});

// Each thread of the sample with throttled time gets the limit that
// throttled its process (by the ids the sample shows, kdelay's) named in
// its budget.
void name_throttling_limits(Sample& sample, CpuLimitWatch& limits);

}  // namespace kdelay
