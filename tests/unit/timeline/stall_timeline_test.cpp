// A stall's timeline from a fixed set of kernel events: its tracks and
// slices, the Perfetto bytes against the golden trace that
// tests/timeline/check_trace.py checks (ctest TimelineChecker.*), and the
// trace file's name from hostile names.
#include <gtest/gtest.h>

#include <cstring>
#include <unistd.h>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/error.h"
#include "delay/thread_timeline.h"
#include "timeline/perfetto.h"
#include "timeline/trace_file.h"

namespace kdelay {
namespace {

constexpr uint32_t kNanosleep = 230;  // x86-64

kd_tl_event event(uint32_t kind, uint64_t at, uint64_t end = 0, uint32_t arg = 0, uint32_t nr = 0, uint32_t tid = 0,
                  uint32_t tgid = 0, const char* comm = "")
{
    kd_tl_event e{};
    e.kind = kind;
    e.at = at;
    e.end = end;
    e.arg = arg;
    e.nr = nr;
    e.tid = tid;
    e.tgid = tgid;
    std::strncpy(e.comm, comm, sizeof(e.comm) - 1);
    return e;
}

// 400 us: running, 30 us ready behind kd-rival, running, a 200 us sleep
// that a timer ends, ready, running with a hard IRQ, and a 4 KiB read in
// flight across the sleep.
ThreadEvents golden_stall()
{
    ThreadEvents s;
    s.start_ns = 1'000'000;
    s.end_ns = 1'400'000;
    s.pid = 100;
    s.tid = 101;
    s.process = "kd-main";
    s.thread = "kd-staller";
    s.events = {
        event(KD_TL_STATE, 1'050'000, 0, KD_B_READY),
        event(KD_TL_HOLDER, 1'050'000, 1'080'000, 0, 0, 201, 200, "kd-rival"),
        event(KD_TL_STATE, 1'080'000, 0, KD_B_RUNNING),
        event(KD_TL_STATE, 1'100'500, 0, KD_B_BLOCKED, kNanosleep),
        event(KD_TL_WAKEUP, 1'300'000, 0, KD_WAKER_TIMER),
        event(KD_TL_STATE, 1'300'000, 0, KD_B_READY),
        event(KD_TL_STATE, 1'300'010, 0, KD_B_RUNNING),
        event(KD_TL_SYSCALL, 1'100'000, 1'300'100, kNanosleep),
        event(KD_TL_HARDIRQ, 1'350'000, 1'352'000, 0, 0, 0, 0, "eth0"),
        event(KD_TL_BLOCKIO, 1'090'000, 1'250'000, 'R', 0, 4096),
    };
    s.longest_waits = {TimeBudget::LongWait{1'100'500, 199'500, "clock_nanosleep",
                                            {"__schedule", "do_nanosleep", "__clock_nanosleep"}, false}};
    return s;
}

const TimelineTrack* find_track(const Timeline& t, const std::string& name)
{
    for (const TimelineTrack& track : t.tracks)
        if (track.name == name || track.thread_name == name || track.process_name == name)
            return &track;
    return nullptr;
}

TEST(StallTimeline, StatesCoverTheIntervalAndNameWhatTheyWaitedFor)
{
    const Timeline t = threads_timeline({golden_stall()});
    const TimelineTrack* states = find_track(t, "state");
    ASSERT_NE(states, nullptr);
    std::vector<std::string> names;
    uint64_t at = 1'000'000;
    for (const TimelineSlice& s : states->slices) {
        EXPECT_EQ(s.start_ns, at) << s.name;
        at = s.end_ns;
        names.push_back(s.name);
    }
    EXPECT_EQ(at, 1'400'000u);
    EXPECT_EQ(names, (std::vector<std::string>{"running", "ready", "running", "blocked in clock_nanosleep", "ready",
                                               "running"}));
    // The ready slice names its CPU's holder, the blocked one has its stack
    // (outermost last here: innermost first) and the timer's flow.
    EXPECT_EQ(states->slices[1].args.at(0).first, "held by kd-rival (200/201)");
    EXPECT_EQ(states->slices[3].frames.front(), "__schedule");
    ASSERT_EQ(states->slices[4].flows_in.size(), 1u);
    const TimelineTrack* timer = find_track(t, "timer");
    ASSERT_NE(timer, nullptr);
    ASSERT_EQ(timer->slices.size(), 1u);
    EXPECT_EQ(timer->slices[0].flows_out, states->slices[4].flows_in);
    // The holder's own track, and under it its turn on the CPU.
    const TimelineTrack* rival = find_track(t, "kd-rival");
    ASSERT_NE(rival, nullptr);
    EXPECT_EQ(rival->tid, 201u);
    EXPECT_EQ(rival->pid, 200u);
    const TimelineTrack* turns = find_track(t, "held a waiting thread's CPU");
    ASSERT_NE(turns, nullptr);
    EXPECT_EQ(turns->parent, rival->uuid);
    ASSERT_EQ(turns->slices.size(), 1u);
    EXPECT_EQ(turns->slices[0].end_ns - turns->slices[0].start_ns, 30'000u);
}

TEST(StallTimeline, LostStateEventsAreOneSliceThatSaysSo)
{
    ThreadEvents s = golden_stall();
    s.states_not_kept = 7;
    const Timeline t = threads_timeline({s});
    const TimelineTrack* states = find_track(t, "state");
    ASSERT_NE(states, nullptr);
    EXPECT_EQ(states->slices.front().name, "7 earlier events not kept");
    EXPECT_EQ(states->slices.front().start_ns, s.start_ns);
}

std::string golden_path() { return std::string(KDELAY_GOLDEN_DIR) + "/stall_timeline.pftrace"; }

// The golden trace is these bytes; KDELAY_UPDATE_GOLDEN=1 writes it anew
// (then check it: ctest -R TimelineChecker).
TEST(StallTimeline, PerfettoBytesAreTheGoldenTrace)
{
    const std::string bytes = perfetto_trace(threads_timeline({golden_stall()}));
    if (const char* update = std::getenv("KDELAY_UPDATE_GOLDEN"); update && std::string(update) == "1") {
        std::ofstream(golden_path(), std::ios::binary) << bytes;
        GTEST_SKIP() << "wrote " << golden_path();
    }
    std::ifstream in(golden_path(), std::ios::binary);
    ASSERT_TRUE(in) << golden_path();
    const std::string golden((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(bytes, golden);
}

TEST(TraceFile, NamesOfThreadsAndProcessesCannotLeaveTheDirectory)
{
    const auto start = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'795'000'000'123));
    const std::string name = trace_file_name(TraceFileName{"../../etc/x", 7, "ev\x1b[31mil\n/", 8, start});
    EXPECT_EQ(name.find('/'), std::string::npos) << name;  // never outside DIR, whatever the dots
    EXPECT_EQ(name.rfind("kdelay-stall-", 0), 0u) << name;
    for (unsigned char c : name)
        EXPECT_TRUE(std::isalnum(c) || c == '.' || c == '_' || c == '-') << name;
    EXPECT_NE(name.find(".123-"), std::string::npos) << name;
    EXPECT_EQ(name.substr(name.size() - 8), ".pftrace");
    EXPECT_EQ(trace_file_name(TraceFileName{"", 1, "-x", 2, start}).find("--"), std::string::npos);
}

}  // namespace
}  // namespace kdelay
