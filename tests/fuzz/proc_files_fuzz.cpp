// The /proc and cgroup files kdelay reads: a task's stat line, its status,
// its maps and a cgroup's list of ids. A name or path in them is the
// task's own choice.
#include "fuzz_input.h"
#include "sys/cgroup.h"
#include "sys/process.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text = kdfuzz::text(data, size);
    kdelay::ThreadState t;
    (void)kdelay::parse_task_stat(text, t);
    (void)kdelay::parse_mapped_files(text);
    (void)kdelay::parse_status_tgid(text);
    (void)kdelay::parse_cgroup_ids(text);
    return 0;
}
