// The sampler's SampleSource on a loaded delay program: drives the capture
// state, streams syscall events, reads a sample through the map readers
// (delay/sample_reading.h) and empties the maps between samples. The stall
// watch reads the same program through its own reader (stall/stall_reader.h).
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

#include "loader/ring_buffer.h"
#include "loader/session.h"
#include "delay/budget.h"
#include "delay/program.h"
#include "delay/sample.h"
#include "delay/sample_source.h"
#include "delay/window_profile.h"
#include "delay_abi.h"
#include "sys/cpu_limit.h"
#include "sys/pid_map.h"

namespace kdelay {

class BpfSession;
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
    bool has_events() const override { return params_.features.syscall_events.has_value(); }
    bool streams() const override { return rings_ || profile_; }
    uint64_t progress() override;
    void poll_events(std::chrono::steady_clock::time_point deadline) override;
    Sample collect() override;
    void reset() override;
    std::vector<MapOverflow> map_full() override;
    uint64_t bios_lost() override;
    uint64_t trigger_misses() override;
    uint64_t events_dropped() override;

private:
    // --budget: the CPU limits on the target's processes as a window opens
    // (by their ids in kdelay's namespace).
    void note_cpu_limits();
    CpuLimitWatch limits_;
    // --timeline in a sample: each thread's events.
    std::vector<ThreadEvents> read_timelines(const SampleReading& r);
    BpfSession& session_;
    MapIo& maps_;
    uint64_t skipped_before_ = 0;  // session_.skipped_runs() when the sample began
    const DelayProgramParams params_;  // what the program has
    std::function<PidMap()> ids_;
    BudgetWindow window_;  // of the last sample, set by stop_capture()
    // --budget: the target's threads when the window closed (task iterator).
    std::optional<std::map<uint32_t, kd_task_now>> tasks_at_end_;
    // Syscall events, and --profile's stack copies.
    std::unique_ptr<RingBufferReader> rings_;
    void add_ring(const char* map, RingBufferReader::Handler handler);
    // --profile: the window's samples.
    std::unique_ptr<WindowProfile> profile_;
    // Chunked, so a storm never stalls the consumer on a large reallocation.
    std::deque<kd_event> pending_;
};

}  // namespace kdelay
