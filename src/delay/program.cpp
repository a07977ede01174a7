#include "delay/program.h"

#include <algorithm>
#include <fmt/format.h>

#include "bpf/embedded.h"
#include "block/block_program.h"
#include "bpf/template.h"
#include "core/error.h"
#include "delay/section.h"

namespace kdelay {
namespace {

// The program's parts after delay.bpf.c's shared code, one per concern
// (templates/delay_NAME.bpf.c), in the order the C needs.
// The plug-in sections' parts follow (section_parts()).
constexpr const char* kDelayParts[] = {"syscall_state", "budget", "syscalls", "sched", "irq",
                                       "triggers",      "block",  "upcalls"};

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

// Each plug-in section that is on: its counters' macros, then its template.
std::string section_parts(const DelayFeatures& f)
{
    std::string parts;
    for (const RegisteredSection& s : registered_sections()) {
        if (!s.def->on.is_on(f))
            continue;
        parts += fmt::format("/* The counters the registry gave the {} section. */\n", s.def->on.name);
        for (size_t i = 0; i < s.def->maps.size(); ++i)
            if (s.full[i] >= 0)
                parts += fmt::format("#define {} {}\n", s.def->maps[i].full_macro, s.full[i]);
        if (s.def->hist_macro)
            parts += fmt::format("#define {} {}\n", s.def->hist_macro, s.hist_kind);
        parts += embedded_file(std::string(s.def->on.name) + ".bpf.c") + "\n";
    }
    return parts;
}

}  // namespace

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
    };
}

std::string render_delay_program(const DelayProgramParams& p)
{
    TemplateValues v;
    v.partial("delay_abi", embedded_file("delay_abi.h"));
    std::string parts;
    for (const char* part : kDelayParts)
        parts += embedded_file(std::string("delay_") + part + ".bpf.c") + "\n";
    v.partial("delay_parts", parts + section_parts(p.features));
    v.number("target_tgid", static_cast<uint64_t>(p.tgid));
    v.number("poll_nr", p.poll_nr);
    v.number("task_pid_off", p.layout.task_pid.offset);
    v.number("task_tgid_off", p.layout.task_tgid.offset);
    v.number("task_state_off", p.layout.task_state.offset);
    v.number("switch_passes_prev_state", p.layout.switch_passes_prev_state);
    v.identifier("task_state_type", uint_type("task_struct state", p.layout.task_state.size));
    v.number("task_comm_off", p.layout.task_comm.offset);
    v.number("task_run_delay_off", p.layout.task_run_delay.offset);
    v.number("task_last_arrival_off", p.layout.task_last_arrival.offset);
    v.number("task_last_queued_off", p.layout.task_last_queued.offset);
    v.number("task_cfs_rq_off", p.layout.task_cfs_rq.offset);
    v.number("cfs_rq_rq_off", p.layout.cfs_rq_rq.offset);
    v.number("rq_clock_off", p.layout.rq_clock.offset);
    v.number("rq_cpu_off", p.layout.rq_cpu.offset);
    v.number("max_cpus", p.cpus);
    v.number("irqaction_name_off", p.layout.irqaction_name.offset);
    v.number("pt_regs_nr_off", p.layout.regs_syscall_nr.offset);
    v.identifier("pt_regs_nr_type", uint_type("pt_regs syscall number", p.layout.regs_syscall_nr.size));
    v.number("max_threads", p.sizes.threads);
    v.number("slot_claims", p.compare_and_swap ? 1 : 0);
    v.number("max_syscalls", p.sizes.syscalls);
    v.number("max_hardirqs", p.sizes.hardirqs);
    v.number("max_softirqs", p.sizes.softirqs);
    v.section("start_trigger", p.start_trigger);
    v.section("stop_trigger", p.stop_trigger);
    const DelayFeatures& f = p.features;
    v.section("syscall_events", f.syscall_events.has_value());
    v.number("syscall_event_min_ns", f.syscall_events.value_or(0));
    v.section("skip_poll", f.skip_syscall_poll_events);
    v.section("stack_traces", f.stack_traces());
    v.number("stack_trace_size", f.stack_trace_size);
    v.number("ringbuf_pages", f.ringbuf_pages);
    for (const FeatureSwitch* s : feature_switches())
        v.section(s->name, s->is_on(f));
    v.number("map_full_count", static_cast<uint64_t>(map_full_count()));
    for (const RegisteredSection& s : registered_sections())
        for (const SectionMap& m : s.def->maps)
            v.number(std::string("max_") + m.name, section_map_size(m, p.sizes));
    v.number("max_wakers", p.sizes.wakers);
    v.number("max_blame", p.sizes.wakers);
    v.number("max_hist", p.sizes.hist);
    v.section("block_report", p.block.has_value());
    v.number("max_blockio", p.sizes.blockio);
    add_block_values(v, p.block, p.sizes.bios);
    v.section("upcalls", p.upcalls != UpcallPlan::Probe::none);
    v.number("pt_regs_rc_off", p.layout.regs_return.offset);
    return render_template("delay.bpf.c", embedded_file("delay.bpf.c"), v);
}

}  // namespace kdelay
