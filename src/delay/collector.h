// The delay mode's SampleSource on a loaded program: drives the capture
// state, streams syscall events, reads a sample through the map readers
// (delay/map_readers.h) and empties the maps between samples.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <sys/types.h>
#include <vector>

#include <linux/types.h>

#include "bpf/ring_buffer.h"
#include "bpf/session.h"
#include "delay/budget.h"
#include "delay/program.h"
#include "delay/sample.h"
#include "delay/sample_source.h"
#include "delay_abi.h"
#include "sys/pid_map.h"

namespace kdelay {

class BpfSession;
class Symbolizer;
class MapIo;
struct SampleReading;

class DelayCollector final : public SampleSource {
public:
    // Reads what the program built from params has. The threads of its
    // target (params.tgids) that no event showed get a budget from /proc.
    // In a PID namespace of kdelay's own, ids gives the target's threads'
    // ids there: the sample shows those, and /proc is read by them.
    DelayCollector(BpfSession& session, const DelayProgramParams& params, std::function<PidMap()> ids = {});
    ~DelayCollector();

    void start_capture() override;
    void arm() override;
    void stop_capture() override;
    CaptureState capture_state() override;
    bool has_events() const override { return events_ != nullptr; }
    uint64_t progress() override;
    void poll_events(std::chrono::steady_clock::time_point deadline) override;
    Sample collect() override;
    void reset() override;
    std::vector<MapOverflow> map_full() override;
    uint64_t bios_lost() override;
    uint64_t trigger_misses() override;
    uint64_t events_dropped() override;

    // --stall: waits for stalls until deadline; then reads each one's
    // values and lets its thread begin intervals again.
    std::vector<Stall> take_stalls(std::chrono::steady_clock::time_point deadline);
    uint64_t stalls_dropped();
    uint64_t stalls_unwatched();
    uint64_t exits_dropped();
    // --stall: the loop intervals each thread began so far, live threads
    // and exited ones, by process name and thread name.
    using IntervalCounts = std::map<std::pair<std::string, std::string>, uint64_t>;
    IntervalCounts loop_intervals();
    // How many threads have entries now, as loop_intervals() last saw.
    size_t threads_tracked() const { return threads_tracked_; }
    std::vector<ProgramStats> program_stats();
    // Runs of the probes the kernel skipped so far (a run of the same probe
    // was in progress on the CPU).
    uint64_t skipped_runs();

private:
    // --stall: reads the stalls on hand into stalls.
    void read_stalls(std::vector<Stall>& stalls);
    // --timeline, --wait-stacks: the stall e's events and longest waits.
    void read_stall_extras(const kd_stall& e, const PidMap& ids, Stall& stall);
    // --timeline in a sample: each thread's events.
    std::vector<ThreadEvents> read_timelines(const SampleReading& r);
    // The reading's maps, then the sample it makes.
    Sample read_sample(SampleReading& r);
    void set_capture(uint32_t state);
    // --stall: the poll-family call sites of the programs of the processes
    // the kernel side asks for (sites_wanted), and of pids, into
    // poll_programs and poll_sites.
    void serve_poll_sites(std::vector<pid_t> pids = {});
    // Where pid is in the target's list (its size: not one of them).
    size_t process_rank(uint32_t pid) const;
    BpfSession& session_;
    MapIo& maps_;
    uint64_t skipped_before_ = 0;  // session_.skipped_runs() when the sample began
    const DelayProgramParams params_;  // what the program has
    std::function<PidMap()> ids_;
    BudgetWindow window_;  // of the last sample, set by stop_capture()
    // --budget: the target's threads when the window closed (task iterator).
    std::optional<std::map<uint32_t, kd_task_now>> tasks_at_end_;
    std::unique_ptr<RingBufferReader> events_;
    // Chunked, so a storm never stalls the consumer on a large reallocation.
    std::deque<kd_event> pending_;
    std::unique_ptr<RingBufferReader> stall_rings_;  // exits, then stalls
    std::vector<kd_stall> ended_;  // stalls not yet read
    std::map<uint32_t, kd_gen_t> exited_;  // threads whose values are to go
    // Of the threads gone: by process name, and by the kernel's tgid for
    // those whose process is not named yet (its main thread's exit may
    // come after theirs).
    IntervalCounts exited_intervals_;
    std::map<std::pair<uint32_t, std::string>, uint64_t> exited_unnamed_;
    // A process's name: its main thread's, by the kernel's tgid, as entries
    // and exits show it; kept for processes seen lately.
    std::map<uint32_t, std::string> process_names_;
    size_t threads_tracked_ = 0;
    // --wait-stacks: symbol caches by the kernel's tgid.
    std::map<uint32_t, std::unique_ptr<Symbolizer>> symbolizers_;
    std::string process_name(uint32_t tgid);
    void learn_process_name(uint32_t tgid, uint32_t tid, const std::string& name);
};

}  // namespace kdelay
