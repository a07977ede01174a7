#include "delay/program.h"

#include <algorithm>
#include <cctype>
#include <linux/types.h>

#include <bpf/libbpf.h>

#include "block/block_program.h"
#include "core/error.h"
#include "delay/config.h"
#include "delay/section.h"
#include "delay_abi.h"
#include "loader/kernel_features.h"
#include "loader/program_source.h"
#include "sys/syscall_names.h"

namespace kdelay {
namespace {

uint32_t next_pow2(uint64_t v)
{
    uint64_t p = 1;
    while (p < v)
        p <<= 1;
    return static_cast<uint32_t>(std::min<uint64_t>(p, 1u << 24));
}

// C type name for an integer member of this size.
std::string uint_type(const char* what, uint32_t size)
{
    switch (size) {
    case 1: return "__u8";
    case 2: return "__u16";
    case 4: return "__u32";
    case 8: return "__u64";
    }
    throw Error(Exit::osfile,
                std::string("unexpected size ") + std::to_string(size) + " of " + what + " in BTF");
}

// NAME in upper case, for a macro.
std::string macro(const std::string& name)
{
    std::string m = name;
    for (char& c : m)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return m;
}

// --stall: pages of the exits ring, which holds as many exits as the
// syscalls map holds entries (up to 4 MiB): kdelay away from it for a while
// fills the map first, a loss it tells and recovers from, where a full ring
// would leave the dropped threads' values in the maps. A record is the exit
// and the ring's 8-byte header.
uint32_t exits_ring_pages(const DelayMapSizes& sizes)
{
    constexpr uint64_t kExitRecord = sizeof(kd_exit) + 8, kPage = 4096;
    return next_pow2(std::clamp<uint64_t>(uint64_t{sizes.syscalls} * kExitRecord / kPage, 64, 1024));
}

// --stack-copy: pages of the stack_copies ring, room for 32 copies a CPU
// (user space is woken at every 16th), and at least 2 MiB: kdelay reading
// a long stall's copies reads no ring meanwhile.
uint32_t stack_copy_ring_pages(uint32_t copy_bytes, uint32_t cpus)
{
    if (!copy_bytes)
        return 0;
    const uint64_t record = sizeof(kd_stack_copy) + copy_bytes + 8, page = 4096;
    return next_pow2(std::clamp<uint64_t>(uint64_t{cpus} * 32 * record / page, 512, 8192));
}

uint32_t poll_syscall_number()
{
    auto nr = syscall_number("poll");
    // Architectures without poll() (arm64) only have ppoll.
    return nr ? *nr : syscall_number("ppoll").value_or(UINT32_MAX);
}

// The poll family on this architecture: the syscalls whose return begins a
// --stall interval and whose call ends it, as Open vSwitch times them.
std::vector<uint32_t> poll_family_numbers()
{
    std::vector<uint32_t> nrs;
    for (const char* name : {"poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait", "epoll_pwait2"})
        if (const auto nr = syscall_number(name))
            nrs.push_back(*nr);
    return nrs;
}

}  // namespace

DelayProgramParams delay_program_params(const DelayConfig& cfg, const KernelBtf& btf, std::vector<pid_t> kernel_tgids,
                                        std::optional<CgroupMatch> cgroup, size_t threads,
                                        UpcallPlan::Probe upcalls)
{
    DelayProgramParams params;
    params.tgids = std::move(kernel_tgids);
    params.cgroup = std::move(cgroup);
    params.poll_nr = poll_syscall_number();
    params.sizes = size_delay_maps(std::max<size_t>(threads, 1));
    params.layout = read_kernel_layout(btf);
    params.start_trigger = cfg.start_trigger.has_value();
    params.stop_trigger = cfg.stop_trigger.has_value();
    params.start_trigger_target_only = cfg.bpf.cgroup && cfg.start_trigger && cfg.start_trigger->in_processes();
    params.stop_trigger_target_only = cfg.bpf.cgroup && cfg.stop_trigger && cfg.stop_trigger->in_processes();
    params.features = cfg.features;
    params.block = read_block_layout(btf);
    params.compare_and_swap = bpf_has_compare_and_swap();
    params.cpus = static_cast<uint32_t>(std::max(1, libbpf_num_possible_cpus()));
    params.upcalls = upcalls;
    params.stall = cfg.stall;
    if (cfg.stall && !cfg.start_trigger)
        params.stall_poll_nrs = poll_family_numbers();
    if (cfg.stall)
        params.stall_restart_nr = syscall_number("restart_syscall").value_or(0);
    return params;
}

uint32_t section_map_size(const SectionMap& m, const DelayMapSizes& sizes)
{
    if (m.per_thread == 0)
        return sizes.threads;
    return next_pow2(std::max<uint64_t>(1024, uint64_t{sizes.threads} * m.per_thread));
}

DelayMapSizes size_delay_maps(size_t thread_count)
{
    const uint32_t threads = next_pow2(std::max<uint64_t>(256, uint64_t{thread_count} * 4));
    return DelayMapSizes{
        threads,
        next_pow2(std::max<uint64_t>(4096, uint64_t{threads} * 32)),
        next_pow2(std::max<uint64_t>(1024, uint64_t{threads} * 4)),
        next_pow2(std::max<uint64_t>(1024, uint64_t{threads} * 10)),
        next_pow2(std::max<uint64_t>(1024, uint64_t{threads} * 4)),
        16384,
        next_pow2(std::max<uint64_t>(16384, uint64_t{threads} * 512)),
        next_pow2(std::max<uint64_t>(1024, uint64_t{threads} * 16)),
        static_cast<uint32_t>(2 * std::clamp<uint64_t>(thread_count + 16, 64, 256)),
    };
}

std::vector<pid_t> target_processes(const DelayProgramParams& p)
{
    return p.cgroup ? cgroup_processes(p.cgroup->target.path) : p.tgids;
}

std::string render_delay_program(const DelayProgramParams& p)
{
    ConfigNames declared = delay_config_names();
    for (const RegisteredSection& s : registered_sections())
        declared = declared + s.def->config;
    ConfigHeader c(declared);
    // No process yet (--ebpf before a command is launched): tgid 0, no task.
    add_targets(c, p.tgids.empty() && !p.cgroup ? std::vector<pid_t>{0} : p.tgids, p.cgroup);
    c.number("POLL_NR", p.poll_nr);
    c.offsets(task_offsets(), p.layout);
    c.type("TASK_STATE_TYPE", uint_type("task_struct state", p.layout.task_state.size));
    c.flag("SWITCH_PASSES_PREV_STATE", p.layout.switch_passes_prev_state);
    c.number("MAX_CPUS", p.cpus);
    c.type("PT_REGS_NR_TYPE", uint_type("pt_regs syscall number", p.layout.regs_syscall_nr.size));
    c.flag("SLOT_CLAIMS", p.compare_and_swap);

    const DelayFeatures& f = p.features;
    for (const FeatureSwitch* s : feature_switches())
        c.flag("WITH_" + macro(s->name), s->is_on(f));
    c.flag("WITH_START_TRIGGER", p.start_trigger);
    c.flag("WITH_STOP_TRIGGER", p.stop_trigger);
    c.flag("START_TRIGGER_TARGET_ONLY", p.start_trigger_target_only);
    c.flag("STOP_TRIGGER_TARGET_ONLY", p.stop_trigger_target_only);
    c.flag("WITH_SYSCALL_EVENTS", f.syscall_events.has_value());
    c.number("SYSCALL_EVENT_MIN_NS", f.syscall_events.value_or(0));
    c.flag("SKIP_POLL_EVENTS", f.skip_syscall_poll_events);
    c.number("RINGBUF_PAGES", f.buffer_page_count);
    c.flag("WITH_STACK_TRACES", f.stack_traces());
    c.number("STACK_TRACE_SIZE", f.stack_trace_size);
    c.flag("WITH_TIMELINE", f.timeline);
    c.number("TIMELINE_THREADS", p.sizes.timelines);
    c.number("WAIT_STACKS", f.wait_stacks);
    c.number("PROFILE_HZ", f.profile_hz);
    c.number("WINDOW_PROFILE_STACKS", p.stall ? 0 : kWindowProfileStacks);
    c.flag("WITH_UPCALLS", p.upcalls != UpcallPlan::Probe::none);
    c.flag("STALL", p.stall.has_value());
    c.number("STALL_NS", p.stall.value_or(0));
    c.number("STALL_RINGBUF_PAGES", 64);
    c.number("EXITS_RINGBUF_PAGES", exits_ring_pages(p.sizes));
    const bool sites = p.stall_sites();
    c.flag("STALL_SITES", sites);
    c.flag("TASK_PT_REGS", p.layout.task_pt_regs);
    c.number("PT_REGS_SP_OFF", p.layout.regs_sp ? p.layout.regs_sp->offset : 0);
    const uint32_t copy = p.stack_copy_bytes();
    c.number("STACK_COPY_BYTES", copy);
    c.number("STACK_COPY_RINGBUF_PAGES", stack_copy_ring_pages(copy, p.cpus));
    // As probes_on() names the sys_exit step (sections/registry.cpp).
    c.flag("WITH_WAIT_COPY", p.stall && f.wait_stacks && f.stack_copy_bytes);
    c.number("PT_REGS_CS_OFF", copy ? p.layout.regs_cs->offset : 0);
    c.number("PT_REGS_SIZE", copy ? p.layout.pt_regs_size : 0);
    c.number("TASK_STACK_OFF", copy && p.layout.task_stack ? p.layout.task_stack->offset : 0);
    c.number("THREAD_SIZE", p.layout.thread_size);
    c.number("STALL_RESTART_NR", p.stall_restart_nr);
    c.flag("TASK_ITERATOR", p.layout.task_iterator);
    c.number("TASK_ON_CPU_OFF", p.layout.task_on_cpu ? p.layout.task_on_cpu->offset : 0);
    c.number("TASK_ON_CPU_SIZE", p.layout.task_on_cpu ? p.layout.task_on_cpu->size : 0);
    const auto& throttle = p.layout.throttle;
    c.flag("THROTTLE_MEASURED", throttle.has_value());
    c.number("CFS_THROTTLED_ENDED_OFF", throttle ? throttle->ended.offset : 0);
    c.number("CFS_THROTTLED_SINCE_OFF", throttle ? throttle->since.offset : 0);
    c.number("CFS_THROTTLE_COUNT_OFF", throttle ? throttle->count.offset : 0);
    c.number("THROTTLE_CLOCK_OFF", throttle ? throttle->clock.offset : 0);
    c.flag("STEAL_MEASURED", p.layout.rq_steal.has_value());
    c.number("RQ_STEAL_OFF", p.layout.rq_steal ? p.layout.rq_steal->offset : 0);
    if (p.stall_poll_nrs.size() > kMaxStallPollNrs)
        throw Error(Exit::software, "more poll-family syscalls than the program compares");
    c.number("STALL_POLL_NRS", p.stall_poll_nrs.size());
    c.indexed("STALL_POLL_NR", std::vector<uint64_t>(p.stall_poll_nrs.begin(), p.stall_poll_nrs.end()),
              kMaxStallPollNrs);

    c.number("MAX_THREADS", p.sizes.threads);
    c.number("MAX_SYSCALLS", p.sizes.syscalls);
    c.number("MAX_HARDIRQS", p.sizes.hardirqs);
    c.number("MAX_SOFTIRQS", p.sizes.softirqs);
    c.number("MAX_WAKERS", p.sizes.wakers);
    c.number("MAX_BLAME", p.sizes.wakers);
    c.number("MAX_HIST", p.sizes.hist);
    c.number("MAX_BLOCKIO", p.sizes.blockio);
    c.number("MAP_FULL_COUNT", static_cast<uint64_t>(map_full_count()));
    add_block_config(c, p.block, p.sizes.bios);

    // The plug-in sections: the counters the registry gave each, its maps'
    // sizes, and its part, which is on with its WITH_ switch.
    std::vector<std::string> parts = {"delay.bpf.c"};
    for (const RegisteredSection& s : registered_sections()) {
        for (size_t i = 0; i < s.def->maps.size(); ++i) {
            c.number("MAX_" + macro(s.def->maps[i].name), section_map_size(s.def->maps[i], p.sizes));
            if (s.full[i] >= 0)
                c.number(s.def->maps[i].full_macro, static_cast<uint64_t>(s.full[i]));
        }
        if (s.def->hist_macro)
            c.number(s.def->hist_macro, static_cast<uint64_t>(s.hist_kind));
        parts.push_back(std::string("delay/sections/") + s.def->on.name + ".bpf.c");
    }
    return assemble_program(parts, c);
}

}  // namespace kdelay
