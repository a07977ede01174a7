// Renders templates/delay.bpf.c for one target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <sys/types.h>

#include "bpf/btf_offsets.h"

namespace kdelay {

struct DelayMapSizes {
    uint32_t threads;
    uint32_t syscalls;
    uint32_t hardirqs;
    uint32_t softirqs;
};

// Room for the target's threads with headroom for ones created while
// sampling; a full map is counted and reported, never silent.
DelayMapSizes size_delay_maps(size_t thread_count);

struct DelayProgramParams {
    pid_t tgid;
    uint32_t poll_nr;
    DelayMapSizes sizes;
    KernelLayout layout;
};

std::string render_delay_program(const DelayProgramParams& params);

}  // namespace kdelay
