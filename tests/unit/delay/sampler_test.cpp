// The sampling loop against a fake kernel side: no root, no eBPF. Signals
// and target exits are real (a blocked SIGINT on EventWait's signalfd, a
// child process's pidfd), so the paths are the ones a user takes.
#include "delay/sampler.h"

#include <csignal>
#include <functional>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "delay/sample_source.h"
#include "report/writer.h"
#include "sys/event_wait.h"
#include "trigger/trigger.h"

using namespace kdelay;

namespace {

// A kernel side whose capture state the test drives. Hooks let a test act
// in the middle of a phase, as a user pressing Ctrl-C would.
class FakeSource : public SampleSource {
public:
    CaptureState state{CaptureState::Phase::idle, 0, 0};
    std::function<void()> on_collect, on_reset, on_arm;
    unsigned collects = 0, resets = 0;
    uint64_t misses = 0;
    uint64_t skipped_per_sample = 0;
    std::vector<MapOverflow> full;

    void start_capture() override { state = {CaptureState::Phase::capturing, 0, 0}; }
    void arm() override
    {
        state = {CaptureState::Phase::armed, 0, 0};
        if (on_arm)
            on_arm();
    }
    void stop_capture() override { state.phase = CaptureState::Phase::dumping; }
    CaptureState capture_state() override { return state; }
    bool has_events() const override { return false; }
    uint64_t progress() override { return 0; }
    void poll_events(std::chrono::steady_clock::time_point) override {}
    Sample collect() override
    {
        ++collects;
        if (on_collect)
            on_collect();
        Sample s;
        s.probe_runs_skipped = skipped_per_sample;
        ThreadSample t;
        t.tid = collects;
        t.name = "t";
        s.threads.push_back(t);
        return s;
    }
    void reset() override
    {
        ++resets;
        state = {CaptureState::Phase::idle, 0, 0};
        if (on_reset)
            on_reset();
    }
    std::vector<MapOverflow> map_full() override { return full; }
    uint64_t bios_lost() override { return 0; }
    uint64_t trigger_misses() override { return misses; }
    uint64_t events_dropped() override { return 0; }
};

// Keeps what the loop reports, in order.
class RecordingWriter : public ReportWriter {
public:
    std::vector<Marker::Kind> markers;
    std::vector<std::optional<uint64_t>> deltas;
    unsigned samples = 0;
    std::vector<std::string> notes, warnings;

    void marker(const Marker& m) override
    {
        markers.push_back(m.kind);
        deltas.push_back(m.delta_ns);
    }
    void report(const Report&) override { ++samples; }
    void stall(const StallReport&) override {}
    void rows_begin(const Table&) override {}
    void row(const Table&, const Row&) override {}
    void table(const Table&) override {}
    void note(const std::string& text) override { notes.push_back(text); }
    void warning(const std::string& text) override { warnings.push_back(text); }
    void lost(const Loss& l) override { warnings.push_back(l.text); }
    size_t count(Marker::Kind k) const { return std::count(markers.begin(), markers.end(), k); }
};

DelayConfig time_mode(unsigned samples, double seconds)
{
    DelayConfig cfg;
    cfg.bpf.pids = {getpid()};
    cfg.sample_count = samples;
    cfg.sample_time = seconds;
    return cfg;
}

DelayConfig trigger_mode(unsigned samples, uint64_t delta_ns)
{
    DelayConfig cfg = time_mode(samples, 10);
    cfg.start_trigger = parse_trigger("u:test:start");
    cfg.stop_trigger = parse_trigger("u:test:stop");
    cfg.trigger_delta = delta_ns;
    return cfg;
}

// A fake kernel side, a recording writer and a real EventWait, per test.
class Sampler : public ::testing::Test {
protected:
    void run(const DelayConfig& cfg, const std::function<void()>& on_first_start = nullptr)
    {
        run_samples(cfg, cfg.bpf.pids, src, wait, out, on_first_start);
    }
    FakeSource src;
    RecordingWriter out;
    EventWait wait;
};

bool has(const std::vector<std::string>& lines, const std::string& needle)
{
    for (const auto& l : lines)
        if (l.find(needle) != std::string::npos)
            return true;
    return false;
}

TEST_F(Sampler, ProbeRunsTheKernelSkippedAreSummedIntoOneWarning)
{
    src.skipped_per_sample = 7;
    run(time_mode(3, 0.01));
    EXPECT_EQ(out.samples, 3u);
    EXPECT_TRUE(has(out.warnings, "the kernel skipped 21 runs of kdelay's probes")) << testing::PrintToString(out.warnings);
}

TEST_F(Sampler, NoProbeRunSkippedNoWarning)
{
    run(time_mode(2, 0.01));
    EXPECT_FALSE(has(out.warnings, "skipped"));
}

TEST_F(Sampler, CtrlCDuringTheResetEndsTheRunWithoutAnotherSample)
{
    src.on_reset = [] { raise(SIGINT); };  // pressed while the maps are cleared
    run(time_mode(3, 0.01));
    EXPECT_EQ(out.samples, 1u);
    EXPECT_EQ(out.count(Marker::Kind::start), 1u);
    EXPECT_TRUE(wait.interrupted());
}

TEST_F(Sampler, CtrlCDuringTheDumpStillReportsTheSample)
{
    src.on_collect = [] { raise(SIGINT); };
    run(time_mode(3, 0.01));
    EXPECT_EQ(out.samples, 1u);
    EXPECT_EQ(src.resets, 1u);
}

TEST_F(Sampler, CtrlCDuringASampleReportsWhatWasCollected)
{
    run(time_mode(2, 30), [] { raise(SIGINT); });
    EXPECT_EQ(out.samples, 1u);
    EXPECT_TRUE(has(out.notes, "Interrupted; reporting what was collected"));
}

TEST_F(Sampler, TargetExitEndsTheSampleAndTheRun)
{
    const pid_t child = fork();
    if (child == 0)
        _exit(0);
    wait.watch_process(child);
    DelayConfig cfg = time_mode(3, 30);
    cfg.bpf.pids = {child};
    run(cfg);
    waitpid(child, nullptr, 0);
    EXPECT_EQ(out.samples, 1u);
    EXPECT_TRUE(has(out.notes, "exited; the sample ends here"));
}

TEST_F(Sampler, TriggeredSamplesBelowTheDeltaAreSkippedAndNotCounted)
{
    // Sample k fires start at 1000 and stop 100*k ns later: k = 1..3 are
    // shorter than the 350 ns delta, k = 4, 5 are not.
    unsigned fired = 0;
    src.on_arm = [&] {
        ++fired;
        src.state = {CaptureState::Phase::dumping, 1000, 1000 + 100ull * fired};
    };
    run(trigger_mode(2, 350));
    EXPECT_EQ(fired, 5u);
    EXPECT_EQ(out.count(Marker::Kind::dump_skipped), 3u);
    EXPECT_EQ(out.samples, 2u);
    EXPECT_EQ(out.deltas.back(), std::optional<uint64_t>(500));
}

TEST_F(Sampler, MissedStartsAreCountedOnlyForDumpsFollowedByASample)
{
    src.on_arm = [&] { src.state = {CaptureState::Phase::dumping, 1000, 5000}; };
    src.on_collect = [&] { src.misses += 2; };  // starts fired during each dump
    run(trigger_mode(3, 0));
    EXPECT_EQ(out.samples, 3u);
    // Three dumps saw 2 misses each; the last had no sample after it.
    ASSERT_TRUE(has(out.warnings, "4 start triggers fired while kdelay was still dumping"))
        << (out.warnings.empty() ? "" : out.warnings[0]);
}

TEST_F(Sampler, CtrlCWhileArmedReportsNothingAndSaysSo)
{
    src.on_arm = [] { raise(SIGINT); };
    run(trigger_mode(2, 0));
    EXPECT_EQ(out.samples, 0u);
    EXPECT_TRUE(has(out.notes, "Interrupted while waiting for the start trigger"));
}

TEST_F(Sampler, AFullMapIsAWarningNamingIt)
{
    src.full = {{"syscall", 1234}};
    run(time_mode(1, 0.01));
    ASSERT_EQ(out.warnings.size(), 1u);
    EXPECT_EQ(out.warnings[0],
              "the syscall map was full; 1,234 updates were lost and the numbers above are incomplete.");
}

}  // namespace
