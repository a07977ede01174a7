/* Whether a task belongs to the target: its tgid compared with each of the
 * target's processes, given by kd_config.h as TARGET_TGIDS (how many; 0:
 * every process) and TARGET_TGID_0... Constants, no map lookup: this runs for
 * every task on the machine, and one process costs one compare. */
#ifndef KDELAY_TARGETS_BPF_H
#define KDELAY_TARGETS_BPF_H

#include "kd_config.h"
#include "target_abi.h"

#if TARGET_TGIDS > KD_MAX_TARGETS
#error "more target processes than is_target() compares"
#endif

static __always_inline int is_target(__u32 tgid)
{
#if TARGET_TGIDS == 0
    return 1;
#else
    return tgid == TARGET_TGID_0
#if TARGET_TGIDS > 1
           || tgid == TARGET_TGID_1
#endif
#if TARGET_TGIDS > 2
           || tgid == TARGET_TGID_2
#endif
#if TARGET_TGIDS > 3
           || tgid == TARGET_TGID_3
#endif
#if TARGET_TGIDS > 4
           || tgid == TARGET_TGID_4
#endif
#if TARGET_TGIDS > 5
           || tgid == TARGET_TGID_5
#endif
#if TARGET_TGIDS > 6
           || tgid == TARGET_TGID_6
#endif
#if TARGET_TGIDS > 7
           || tgid == TARGET_TGID_7
#endif
        ;
#endif
}

#endif
