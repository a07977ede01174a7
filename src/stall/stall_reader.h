// The stall watch's reader of the delay program: the stalls and thread
// exits the kernel side hands over, each stall read as a one-thread sample
// of its interval (delay/sample_reading.h), the poll-family call sites the
// kernel side asks for, and the loss counters. The sampler reads the same
// program through DelayCollector.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

#include "delay/program.h"
#include "delay/sample.h"
#include "delay/sample_source.h"
#include "delay_abi.h"
#include "loader/ring_buffer.h"
#include "loader/session.h"
#include "profile/process_stacks.h"
#include "stall/stack_copies.h"
#include "stall/stall.h"
#include "sys/cpu_limit.h"
#include "sys/pid_map.h"

namespace kdelay {

class MapIo;
class Symbolizer;

class StallReader {
public:
    // ids: as DelayCollector's.
    StallReader(BpfSession& session, const DelayProgramParams& params, std::function<PidMap()> ids = {});
    ~StallReader();

    // Serves the target's poll sites and lets the kernel side begin intervals.
    void start();
    // Waits for stalls until deadline; then reads each one's values and
    // lets its thread begin intervals again.
    std::vector<Stall> take_stalls(std::chrono::steady_clock::time_point deadline);

    uint64_t stalls_dropped();
    uint64_t stalls_unwatched();
    uint64_t exits_dropped();
    // --profile: samples of intervals whose store was full.
    uint64_t profile_samples_lost();
    // --stack-copy: kept samples whose stack was not copied (the ring was
    // full); their user stacks are the frame-pointer walk's.
    uint64_t stack_copies_lost();
    std::vector<MapOverflow> map_full();
    uint64_t bios_lost();
    // Runs of the probes the kernel skipped so far (a run of the same probe
    // was in progress on the CPU).
    uint64_t skipped_runs();
    std::vector<ProgramStats> program_stats();

    // The loop intervals each thread began so far, live threads and exited
    // ones, by process name and thread name.
    using IntervalCounts = std::map<std::pair<std::string, std::string>, uint64_t>;
    IntervalCounts loop_intervals();
    // How many threads have entries now, as loop_intervals() last saw.
    size_t threads_tracked() const { return threads_tracked_; }

private:
    // Reads the stalls on hand into stalls.
    void read_stalls(std::vector<Stall>& stalls);
    // --timeline, --wait-stacks, --profile: the stall e's events, longest
    // waits and samples.
    void read_stall_extras(const kd_stall& e, const PidMap& ids, Stall& stall);
    // --profile: each sample's stacks take places in the stack table, and a
    // short interval's are never read. Every 10 s, when a sixteenth of the
    // table is taken, the stacks no interval's samples or waits name go.
    void sweep_stack_table();
    std::chrono::steady_clock::time_point next_sweep_{};
    // The poll-family call sites of the programs of the processes the
    // kernel side asks for (sites_wanted), and of pids, into poll_programs
    // and poll_sites.
    void serve_poll_sites(std::vector<pid_t> pids = {});
    std::string process_name(uint32_t tgid);
    void learn_process_name(uint32_t tgid, uint32_t tid, const std::string& name);

    BpfSession& session_;
    MapIo& maps_;
    uint64_t skipped_before_ = 0;  // session_.skipped_runs() when the watch began
    const DelayProgramParams params_;
    std::function<PidMap()> ids_;
    std::unique_ptr<RingBufferReader> rings_;  // exits, then stalls
    std::vector<kd_stall> ended_;              // stalls not yet read
    std::map<uint32_t, kd_gen_t> exited_;      // threads whose values are to go
    // Of the threads gone: by process name, and by the kernel's tgid for
    // those whose process is not named yet (its main thread's exit may
    // come after theirs).
    IntervalCounts exited_intervals_;
    std::map<std::pair<uint32_t, std::string>, uint64_t> exited_unnamed_;
    // The CPU limits on the processes of stalls with throttled time, as
    // last looked at: the one whose count grew since is named.
    CpuLimitWatch limits_;
    // A process's name: its main thread's, by the kernel's tgid, as entries
    // and exits show it; kept for processes seen lately.
    std::map<uint32_t, std::string> process_names_;
    size_t threads_tracked_ = 0;
    // --wait-stacks, --profile: each process's symbols and unwinder.
    ProcessStacks stacks_;
    // --stack-copy: the intervals' stack copies, until read or dropped.
    StackCopies stack_copies_;
};

}  // namespace kdelay
