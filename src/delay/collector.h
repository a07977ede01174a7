// Reads the delay program's maps into a Sample and resets them between samples.
#pragma once

#include <array>
#include <cstdint>

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <sys/types.h>
#include <vector>

#include <linux/types.h>

#include "bpf/ring_buffer.h"
#include "delay/budget.h"
#include "delay/sample.h"
#include "delay/program.h"
#include "delay/sample_source.h"
#include "delay_abi.h"

namespace kdelay {

class BpfSession;
struct ThreadSection;

class DelayCollector final : public SampleSource {
public:
    // Reads what the program rendered from params has. With syscall events,
    // pid is the process whose user stacks to symbolize.
    DelayCollector(BpfSession& session, const DelayProgramParams& params, pid_t pid);
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

    struct Reading;

private:
    // Each reads one map of kCoreMaps into the sample (see readers()).
    void read_threads(Reading& r);
    void read_syscalls(Reading& r);
    void read_hardirqs(Reading& r);
    void read_softirqs(Reading& r);
    void read_blockio(Reading& r);
    void read_histograms(Reading& r);
    void read_budgets(Reading& r);
    void read_upcalls(Reading& r);
    static const std::map<std::string, void (DelayCollector::*)(Reading&)>& readers();
    void read_section(Reading& r, const ThreadSection& section);
    void set_capture(uint32_t state);
    int map_fd(const char* name);
    uint64_t percpu_sum(const char* table, int index);
    // The per-CPU syscall runs (kd_recent_runs of each CPU).
    std::vector<kd_recent_runs> recent_runs();
    // Per thread and syscall number: the syscalls hash plus the runs still
    // in the per-CPU slots (recent).
    std::map<std::pair<uint32_t, uint32_t>, kd_stat> syscall_stats(const std::vector<kd_recent_runs>& recent);
    std::vector<SyscallEvent> resolve_events();
    void add_budgets(std::map<uint32_t, ThreadSample>& threads, std::map<uint32_t, std::string>& names,
                     const std::map<uint32_t, kd_budget>& budgets);
    BpfSession& session_;
    const DelayProgramParams params_;  // what the program has
    pid_t pid_;
    BudgetWindow window_;  // of the last sample, set by stop_capture()
    std::unique_ptr<RingBufferReader> events_;
    // Chunked, so a storm never stalls the consumer on a large reallocation.
    std::deque<kd_event> pending_;
};

}  // namespace kdelay
