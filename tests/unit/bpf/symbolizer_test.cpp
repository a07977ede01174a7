// Which kernel frames are the tracer's own, as stacks on 6.1 to 6.18 show them.
#include "bpf/symbolizer.h"

#include <gtest/gtest.h>

using namespace kdelay;

TEST(Symbolizer, TheTracersFramesAreRecognised)
{
    for (const char* f : {"bpf_prog_d32043c43a9a69ed_raw_tracepoint__sys_exit+0x6f4 [kernel]",
                          "bpf_trace_run2+0x103 [kernel]", "__bpf_trace_sys_exit+0xc [kernel]",
                          "__traceiter_sys_exit+0x2d [kernel]", "bpf_dispatcher_xdp_func+0x1 [kernel]"})
        EXPECT_TRUE(is_tracer_frame(f)) << f;
}

TEST(Symbolizer, TheSyscallsFramesAreKept)
{
    for (const char* f : {"syscall_exit_work+0xbc [kernel]", "do_syscall_64+0x22e [kernel]",
                          "entry_SYSCALL_64_after_hwframe+0x76 [kernel]", "hrtimer_nanosleep+0x9f [kernel]",
                          "[unknown] 0x7f56014addd4", "bpf_map_lookup_elem+0x1 [kernel]"})
        EXPECT_FALSE(is_tracer_frame(f)) << f;
}
