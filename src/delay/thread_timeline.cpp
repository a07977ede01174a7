#include "delay/thread_timeline.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "block/block_program.h"
#include "delay/map_readers.h"
#include "delay/sample.h"
#include "report/format.h"
#include "sys/syscall_names.h"

namespace kdelay {
namespace {

// Track ids: one a thread (its process's, its own, its states'), one for
// each kind of interrupt that woke the thread.
uint64_t process_uuid(uint32_t pid) { return uint64_t{pid} << 8 | 1; }
uint64_t thread_uuid(uint32_t tid) { return uint64_t{tid} << 8 | 2; }
uint64_t states_uuid(uint32_t tid) { return uint64_t{tid} << 8 | 3; }
uint64_t turns_uuid(uint32_t tid) { return uint64_t{tid} << 8 | 4; }
uint64_t interrupt_uuid(uint32_t kind) { return 16 + kind; }
// Lanes past the 240th share the last (the writer keeps its slices nested).
uint64_t block_uuid(uint32_t tid, size_t lane) { return uint64_t{tid} << 8 | (16 + std::min<size_t>(lane, 239)); }

std::string ms(uint64_t ns) { return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6); }

std::string state_name(const kd_tl_event& e)
{
    switch (e.arg) {
    case KD_B_RUNNING: return "running";
    case KD_B_READY: return "ready";
    case KD_B_STOPPED: return "stopped";
    case KD_B_DEAD: return "not alive";
    case KD_B_BLOCKED:
        if (e.nr == KD_B_NO_SYSCALL)
            return "blocked outside syscalls";
        if (e.nr == KD_B_SYSCALL_UNKNOWN)
            return "blocked";
        return "blocked in " + syscall_name(e.nr);
    }
    return "unknown";
}

class Builder {
public:
    Timeline build(const std::vector<ThreadEvents>& threads)
    {
        for (const ThreadEvents& thread : threads) {
            t_ = &thread;
            holders_.clear();
            add_thread();
        }
        Timeline t;
        for (auto& [uuid, tr] : tracks_) {
            std::stable_sort(tr.slices.begin(), tr.slices.end(), [](const TimelineSlice& a, const TimelineSlice& b) {
                return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
            });
            t.tracks.push_back(std::move(tr));
        }
        return t;
    }

private:
    void add_thread()
    {
        TimelineTrack& process = track(process_uuid(s_().pid));
        process.pid = s_().pid;
        process.process_name = s_().process;
        TimelineTrack& thread = thread_track(s_().tid, s_().pid, s_().thread);
        TimelineTrack& states = track(states_uuid(s_().tid));
        states.parent = thread.uuid;
        states.name = "state";
        add_states();
        for (const kd_tl_event& e : s_().events)
            add(e);
        add_block_io_tracks();
        mark_longest_waits();
    }

    const ThreadEvents& s_() const { return *t_; }

    TimelineTrack& track(uint64_t uuid)
    {
        TimelineTrack& t = tracks_[uuid];
        t.uuid = uuid;
        return t;
    }

    TimelineTrack& thread_track(uint32_t tid, uint32_t pid, const std::string& name)
    {
        if (pid && !tracks_.count(process_uuid(pid))) {
            TimelineTrack& p = track(process_uuid(pid));
            p.pid = pid;
        }
        TimelineTrack& t = track(thread_uuid(tid));
        t.pid = pid;
        t.tid = tid;
        t.thread_name = name;
        return t;
    }

    // The states' slices cover the interval: the first kept state change
    // ends what was not kept, if anything was not.
    void add_states()
    {
        std::vector<kd_tl_event> changes;
        for (const kd_tl_event& e : s_().events)
            if (e.kind == KD_TL_STATE)
                changes.push_back(e);
        std::stable_sort(changes.begin(), changes.end(),
                         [](const kd_tl_event& a, const kd_tl_event& b) { return a.at < b.at; });
        uint64_t at = s_().start_ns;
        std::string name = s_().first_state;
        if (s_().states_not_kept)
            name = fmt::format("{} earlier events not kept", s_().states_not_kept);
        std::vector<TimelineSlice>& out = track(states_uuid(s_().tid)).slices;
        for (const kd_tl_event& e : changes) {
            const uint64_t when = std::clamp<uint64_t>(e.at, s_().start_ns, s_().end_ns);
            if (when > at)
                out.push_back(make_slice(at, when, name));
            if (when >= at) {
                at = when;
                name = state_name(e);
            }
        }
        if (s_().end_ns > at)
            out.push_back(make_slice(at, s_().end_ns, name));
    }

    void add(const kd_tl_event& e)
    {
        std::vector<TimelineSlice>& own = track(thread_uuid(s_().tid)).slices;
        switch (e.kind) {
        case KD_TL_SYSCALL:
            own.push_back(make_slice(e.at, e.end, syscall_name(e.arg)));
            break;
        case KD_TL_HARDIRQ:
            own.push_back(make_slice(e.at, e.end, "hardirq " + printable(bounded(e.comm))));
            break;
        case KD_TL_SOFTIRQ:
            own.push_back(make_slice(e.at, e.end, "softirq " + softirq_name(e.arg)));
            break;
        case KD_TL_HOLDER: {
            // On a track of its own under the holder's: its syscalls (in a
            // sample) may cross its turns.
            TimelineTrack& holder = thread_track(e.tid, e.tgid, printable(bounded(e.comm)));
            TimelineTrack& turns = track(turns_uuid(e.tid));
            turns.parent = holder.uuid;
            turns.name = "held a waiting thread's CPU";
            turns.slices.push_back(make_slice(e.at, e.end, "running", {{"while waiting", s_().thread}}));
            holders_.push_back(e);
            break;
        }
        case KD_TL_WAKEUP: wakeup(e); break;
        case KD_TL_BLOCKIO: block_io(e); break;
        }
    }

    // A thread's requests may overlap without nesting (readahead, several
    // in flight): each goes on the first of its block I/O tracks that is
    // free by its start.
    void block_io(const kd_tl_event& e)
    {
        const std::string name = fmt::format("{} {} B on {}", static_cast<char>(e.arg), e.tid, disk_name(e.nr));
        block_ios_.push_back(make_slice(e.at, e.end, name));
    }

    void add_block_io_tracks()
    {
        std::sort(block_ios_.begin(), block_ios_.end(),
                  [](const TimelineSlice& a, const TimelineSlice& b) { return a.start_ns < b.start_ns; });
        std::vector<uint64_t> free_at;  // per track
        for (TimelineSlice& s : block_ios_) {
            size_t lane = 0;
            while (lane < free_at.size() && free_at[lane] > s.start_ns)
                ++lane;
            if (lane == free_at.size())
                free_at.push_back(0);
            free_at[lane] = s.end_ns;
            TimelineTrack& t = track(block_uuid(s_().tid, lane));
            t.parent = thread_uuid(s_().tid);
            t.name = lane ? fmt::format("block I/O {}", lane + 1) : "block I/O";
            t.slices.push_back(std::move(s));
        }
        block_ios_.clear();
    }

    void wakeup(const kd_tl_event& e)
    {
        const uint64_t flow = ++flows_;
        TimelineSlice wake = make_slice(e.at, e.at, "wakes " + s_().thread);
        wake.instant = true;
        wake.flows_out.push_back(flow);
        if (e.arg == KD_WAKER_TASK) {
            thread_track(e.tid, e.tgid, printable(bounded(e.comm))).slices.push_back(wake);
        } else {
            TimelineTrack& t = track(interrupt_uuid(e.arg));
            t.name = kind_name(waker_kind(e.arg));
            t.slices.push_back(wake);
        }
        // The flow ends at the state the wakeup began (ready, after it).
        std::vector<TimelineSlice>& states = track(states_uuid(s_().tid)).slices;
        for (TimelineSlice& s : states)
            if (s.start_ns >= e.at || s.end_ns > e.at) {
                s.flows_in.push_back(flow);
                s.args.emplace_back("woken by", e.arg == KD_WAKER_TASK
                                                    ? task_label(printable(bounded(e.comm)), e.tgid, e.tid)
                                                    : std::string(kind_name(waker_kind(e.arg))));
                return;
            }
    }

    // Who held the CPU in each ready slice, and the stacks of the longest
    // waits on their blocked slices.
    void mark_longest_waits()
    {
        std::vector<TimelineSlice>& states = track(states_uuid(s_().tid)).slices;
        for (TimelineSlice& s : states) {
            if (s.name != "ready")
                continue;
            std::map<std::string, uint64_t> by;
            for (const kd_tl_event& h : holders_) {
                const uint64_t from = std::max<uint64_t>(h.at, s.start_ns), to = std::min<uint64_t>(h.end, s.end_ns);
                if (to > from)
                    by[task_label(printable(bounded(h.comm)), h.tgid, h.tid)] += to - from;
            }
            for (const auto& [who, ns] : by)
                s.args.emplace_back("held by " + who, ms(ns));
        }
        for (size_t i = 0; i < s_().longest_waits.size(); ++i) {
            const TimeBudget::LongWait& w = s_().longest_waits[i];
            for (TimelineSlice& s : states)
                if (s.start_ns <= w.start_ns && w.start_ns < std::max(s.end_ns, s.start_ns + 1) &&
                    s.name.rfind("blocked", 0) == 0) {
                    s.frames = w.frames;
                    s.args.emplace_back("longest wait", fmt::format("#{} of the stall, {}", i + 1, ms(w.ns)));
                    break;
                }
        }
    }

    const ThreadEvents* t_ = nullptr;
    std::map<uint64_t, TimelineTrack> tracks_;
    std::vector<kd_tl_event> holders_;
    std::vector<TimelineSlice> block_ios_;
    uint64_t flows_ = 0;
};

}  // namespace

Timeline threads_timeline(const std::vector<ThreadEvents>& threads) { return Builder().build(threads); }

}  // namespace kdelay
