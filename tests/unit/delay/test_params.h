// A DelayProgramParams with this machine's 6.18 task_struct layout, for
// rendering the delay program without BTF.
#pragma once

#include "delay/program.h"

namespace kdtest {

inline kdelay::DelayProgramParams program_params()
{
    kdelay::KernelLayout l{};
    l.task_pid = {1264, 4};
    l.task_tgid = {1268, 4};
    l.task_state = {24, 4};
    l.task_comm = {1752, 16};
    l.task_run_delay = {800, 8};
    l.task_last_arrival = {816, 8};
    l.task_last_queued = {824, 8};
    l.task_cfs_rq = {320, 8};
    l.cfs_rq_rq = {304, 8};
    l.rq_clock = {192, 8};
    l.rq_cpu = {200, 4};
    l.irqaction_name = {96, 8};
    l.regs_syscall_nr = {120, 8};
    l.regs_return = {80, 8};
    l.switch_passes_prev_state = true;
    kdelay::DelayProgramParams p;
    p.tgids = {4321};
    p.poll_nr = 7;
    p.sizes = kdelay::size_delay_maps(10);
    p.layout = l;
    return p;
}

}  // namespace kdtest
