// Assembles bpf/delay.bpf.c and its config for one target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "loader/btf_offsets.h"
#include "loader/program_source.h"
#include "delay/features.h"
#include <linux/types.h>

#include "delay/upcalls.h"
#include "delay_abi.h"

namespace kdelay {

struct DelayMapSizes {
    uint32_t threads;
    uint32_t syscalls;
    uint32_t hardirqs;
    uint32_t softirqs;
    uint32_t blockio;
    uint32_t bios;  // requests in flight, machine-wide
    uint32_t hist;  // histogram buckets (with --histogram)
    uint32_t wakers;  // (woken thread, waker) pairs (with the budget)
    // --timeline: keys of the kernel's per-thread events, two a thread (one
    // for a stall kdelay has yet to read): the target's threads and 16
    // more, from 64 to 256 threads, about 84 KiB each. Other threads'
    // events are counted as lost.
    uint32_t timelines;
};

// Room for the target's threads with headroom for ones created while
// sampling; a full map is counted and reported, never silent.
DelayMapSizes size_delay_maps(size_t thread_count);

struct DelayProgramParams {
    std::vector<pid_t> tgids;  // the target's processes, at most KD_MAX_TARGETS; none: 0 (--ebpf)
    std::optional<CgroupMatch> cgroup;  // or its cgroup, with tgids empty
    uint32_t poll_nr = 0;
    DelayMapSizes sizes{};
    KernelLayout layout{};
    bool start_trigger = false;  // define kd_start_trigger()
    bool stop_trigger = false;   // define kd_stop_trigger()
    // The trigger is attached in every process running its object (a
    // cgroup's USDT or uprobe trigger): it fires for the target's only.
    bool start_trigger_target_only = false;
    bool stop_trigger_target_only = false;
    DelayFeatures features;
    std::optional<BlockLayout> block;  // block I/O section; nullopt: none
    UpcallPlan::Probe upcalls = UpcallPlan::Probe::none;  // kd_upcall_return, kd_upcall_seen
    bool compare_and_swap = true;  // BPF atomics (5.12): thread slots are claimed with one
    uint32_t cpus = 1;             // possible CPUs: the size of per-CPU arrays indexed by CPU
    // --stall: the shortest interval handed over; and the syscalls whose
    // calls end an interval and whose returns begin one (none: the
    // triggers frame them).
    std::optional<uint64_t> stall;
    std::vector<uint32_t> stall_poll_nrs;
    // restart_syscall, which continues a poll-family call that a stop or a
    // trace interrupted (0: none on this architecture).
    uint32_t stall_restart_nr = 0;

    // --stall tells the call sites of the poll family apart (poll_sites).
    bool stall_sites() const { return layout.regs_sp && !stall_poll_nrs.empty(); }
    // --stack-copy's bytes where the kernel lets the program find a
    // sample's user registers (x86-64's pt_regs), else 0.
    uint32_t stack_copy_bytes() const
    {
        const bool regs = layout.regs_sp && layout.regs_cs && !layout.regs_dwarf.empty() && layout.pt_regs_size &&
                          layout.pt_regs_size <= 8 * KD_USER_REGS_WORDS && layout.pt_regs_size % 8 == 0 &&
                          (layout.task_pt_regs || layout.task_stack);
        return regs ? features.stack_copy_bytes : 0;
    }
};

// How many poll-family syscalls the program compares (bpf/delay/stall.bpf.h).
inline constexpr size_t kMaxStallPollNrs = 8;
// --profile in a sample: the pairs of stacks by thread that the kernel
// counts for samples without a stack copy (window_profile).
inline constexpr uint32_t kWindowProfileStacks = 8192;

// The functions triggers attach to.
inline constexpr const char* kStartTriggerFunction = "kd_start_trigger";
inline constexpr const char* kStopTriggerFunction = "kd_stop_trigger";

struct DelayConfig;
// The program for cfg's target: kernel_tgids (-p's processes as the
// kernel numbers them) or cgroup, with maps sized for threads, on the
// kernel btf describes. Every field is set here.
DelayProgramParams delay_program_params(const DelayConfig& cfg, const KernelBtf& btf, std::vector<pid_t> kernel_tgids,
                                        std::optional<CgroupMatch> cgroup, size_t threads, UpcallPlan::Probe upcalls);

std::string render_delay_program(const DelayProgramParams& params);

// The target's processes now: -p's, or those in its cgroup or below.
std::vector<pid_t> target_processes(const DelayProgramParams& params);

struct SectionMap;
// The size of a plug-in section's map (kd_config.h's MAX_NAME).
uint32_t section_map_size(const SectionMap& m, const DelayMapSizes& sizes);

}  // namespace kdelay
