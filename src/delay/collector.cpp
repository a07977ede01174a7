#include "delay/collector.h"

#include <algorithm>
#include <cstring>
#include <ctime>
#include <set>
#include <thread>

#include "bpf/map_io.h"
#include "bpf/session.h"
#include "bpf/symbolizer.h"
#include "delay/map_readers.h"
#include "delay/maps.h"
#include "delay/section.h"
#include "delay/syscall_events.h"
#include "report/format.h"
#include "sys/process.h"
#include "sys/syscall_names.h"
#include "sys/program_text.h"

namespace kdelay {

namespace {

// A thread's kept events, states first, then syscalls and IRQs; how many
// of the former the kernel did not keep.
void append_timeline_events(const kd_timeline& tl, std::vector<kd_tl_event>& events, uint64_t& states_not_kept)
{
    const auto keep = [&](const kd_tl_event* ring, uint64_t head, uint64_t size) {
        for (uint64_t i = head - std::min(head, size); i < head; ++i)
            events.push_back(ring[i % size]);
    };
    keep(tl.events, tl.head, KD_TIMELINE_EVENTS);
    keep(tl.calls, tl.calls_head, KD_TIMELINE_CALLS);
    states_not_kept = tl.head - std::min<uint64_t>(tl.head, KD_TIMELINE_EVENTS);
}

}  // namespace
namespace {

template <class T>
void by_total_desc(std::vector<T>& v)
{
    std::stable_sort(v.begin(), v.end(),
                     [](const T& a, const T& b) { return a.stat.total_ns > b.stat.total_ns; });
}

uint64_t monotonic_ns()
{
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);  // the clock of bpf_ktime_get_ns()
    return static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
}

}  // namespace

DelayCollector::DelayCollector(BpfSession& session, const DelayProgramParams& params, std::function<PidMap()> ids)
    : session_(session), maps_(session.maps()), skipped_before_(session.skipped_runs()), params_(params),
      ids_(std::move(ids))
{
    if (params_.features.syscall_events)
        events_ = std::make_unique<RingBufferReader>(maps_.fd("events"), [this](const void* data, size_t size) {
            if (size >= sizeof(kd_event))
                pending_.push_back(*static_cast<const kd_event*>(data));
        });
    if (params_.stall) {
        // Exits first: drain() then takes the stalls after, and a stall of
        // an exited thread came before its exit.
        stall_rings_ = std::make_unique<RingBufferReader>(maps_.fd("exits"), [this](const void* data, size_t size) {
            if (size >= sizeof(kd_exit)) {
                const auto* e = static_cast<const kd_exit*>(data);
                exited_[e->tid] = e->last_gen;
                learn_process_name(e->tgid, e->tgid, bounded(e->process));
                if (e->intervals)
                    exited_unnamed_[{e->tgid, bounded(e->comm)}] += e->intervals;
            }
        });
        stall_rings_->add(maps_.fd("stalls"), [this](const void* data, size_t size) {
            if (size >= sizeof(kd_stall))
                ended_.push_back(*static_cast<const kd_stall*>(data));
        });
    }
    // Ready before a sample's first window ends, so that the tasks' states
    // are read as it ends (stop_capture); a --stall watch never reads them.
    if (params_.features.budget && params_.layout.task_iterator && !params_.stall)
        session_.prepare_iterator("bpf_iter__task");
}

DelayCollector::~DelayCollector() = default;

void DelayCollector::arm() { set_capture(KD_ARMED); }

void DelayCollector::poll_events(std::chrono::steady_clock::time_point deadline)
{
    if (events_)
        events_->poll_until(deadline);
}

uint64_t DelayCollector::progress() { return events_ ? pending_.size() : syscall_count(maps_); }

CaptureState DelayCollector::capture_state()
{
    const auto cap = maps_.element<kd_capture>("capture", 0);
    static const CaptureState::Phase phases[] = {CaptureState::Phase::idle, CaptureState::Phase::capturing,
                                                 CaptureState::Phase::dumping, CaptureState::Phase::armed};
    return CaptureState{cap.state < 4 ? phases[cap.state] : CaptureState::Phase::idle, cap.start_trigger_ns,
                        cap.stop_trigger_ns};
}

uint64_t DelayCollector::trigger_misses() { return maps_.per_cpu_sum("counters", KD_STAT_TRIGGER_MISS); }
uint64_t DelayCollector::stalls_dropped() { return maps_.per_cpu_sum("counters", KD_STAT_STALLS_DROPPED); }
uint64_t DelayCollector::stalls_unwatched() { return maps_.per_cpu_sum("counters", KD_STAT_STALLS_UNWATCHED); }
uint64_t DelayCollector::exits_dropped() { return maps_.per_cpu_sum("counters", KD_STAT_EXITS_DROPPED); }
uint64_t DelayCollector::events_dropped() { return maps_.per_cpu_sum("counters", KD_STAT_EVENTS_DROPPED); }
uint64_t DelayCollector::bios_lost() { return delay_maps::block_io(params_) ? maps_.per_cpu_sum("bio_lost", 0) : 0; }

void DelayCollector::set_capture(uint32_t state)
{
    kd_capture cap{};
    cap.state = state;
    cap.start_ns = monotonic_ns();
    maps_.set_element("capture", 0, cap);
}

void DelayCollector::start_capture()
{
    if (params_.stall_sites())
        serve_poll_sites(target_processes(params_));
    set_capture(KD_CAPTURING);
}

void DelayCollector::serve_poll_sites(std::vector<pid_t> pids)
{
    const size_t asked = pids.size();
    for (const auto& [tgid, unused] : maps_.entries<uint32_t, uint32_t>("sites_wanted"))
        pids.push_back(static_cast<pid_t>(tgid));
    if (pids.size() > asked) {  // new processes: the gone ones' sites go, so the maps never fill
        std::set<uint32_t> gone;
        for (const auto& [tgid, unused] : maps_.entries<uint32_t, kd_poll_program>("poll_programs"))
            if (!process_exists(static_cast<pid_t>(tgid)))
                gone.insert(tgid);
        for (const uint32_t tgid : gone)
            maps_.erase("poll_programs", tgid);
        for (const auto& [key, unused] : maps_.entries<kd_site_key, uint64_t>("poll_sites"))
            if (gone.count(key.tgid))
                maps_.erase("poll_sites", key);
    }
    for (const pid_t pid : pids) {
        // kdelay reads /proc by the kernel's ids only in the kernel's PID
        // namespace; elsewhere no site is known: every call is a loop's.
        std::vector<PollSite> sites = in_kernels_pid_namespace() ? program_poll_sites(pid) : std::vector<PollSite>{};
        if (sites.size() > KD_POLL_SITES)
            sites.resize(KD_POLL_SITES);
        for (const PollSite& s : sites)
            maps_.set("poll_sites", kd_site_key{static_cast<uint32_t>(pid), 0, s.ret}, uint64_t{s.function});
        maps_.set_element("poll_programs", static_cast<uint32_t>(pid),
                          kd_poll_program{static_cast<uint32_t>(sites.size()), 0});
        maps_.erase("sites_wanted", static_cast<uint32_t>(pid));
    }
}

void DelayCollector::stop_capture()
{
    // A stop trigger may have frozen the maps already; keep its timestamp.
    kd_capture cap = maps_.element<kd_capture>("capture", 0);
    window_.start_ns = cap.start_trigger_ns ? cap.start_trigger_ns : cap.start_ns;
    window_.end_ns = cap.state == KD_DUMPING && cap.stop_trigger_ns ? cap.stop_trigger_ns : monotonic_ns();
    if (cap.state != KD_DUMPING) {
        cap.state = KD_DUMPING;
        maps_.set_element("capture", 0, cap);
    }
    // The tasks' states first: the later they are read after the window,
    // the likelier a thread that waited all through it has run since.
    tasks_at_end_.reset();
    if (params_.features.budget && params_.layout.task_iterator) {
        std::map<uint32_t, kd_task_now> tasks;
        const std::string records = session_.run_iterator("bpf_iter__task");
        for (size_t at = 0; at + sizeof(kd_task_now) <= records.size(); at += sizeof(kd_task_now)) {
            kd_task_now t{};
            std::memcpy(&t, records.data() + at, sizeof(t));
            tasks[t.tid] = t;
        }
        tasks_at_end_ = std::move(tasks);
    }
    if (events_)
        events_->drain();
}

namespace {

// The sample in the ids of kdelay's PID namespace: the target's threads and
// processes, and any task of that namespace named as a waker or holder.
void show_local_ids(Sample& sample, const PidMap& ids)
{
    for (ThreadSample& t : sample.threads) {
        t.tid = ids.local(t.tid);
        t.pid = ids.local(t.pid);
        if (!t.budget)
            continue;
        for (auto& w : t.budget->wakers) {
            w.tid = ids.local(w.tid);
            w.pid = ids.local(w.pid);
        }
        for (auto& h : t.budget->ready_blame) {
            h.tid = ids.local(h.tid);
            h.pid = ids.local(h.pid);
        }
    }
    for (SyscallEvent& e : sample.events) {
        e.tid = ids.local(e.tid);
        e.pid = ids.local(e.pid);
    }
}

}  // namespace

size_t DelayCollector::process_rank(uint32_t pid) const
{
    const auto& tgids = params_.tgids;
    return static_cast<size_t>(std::find(tgids.begin(), tgids.end(), static_cast<pid_t>(pid)) - tgids.begin());
}

Sample DelayCollector::collect()
{
    const PidMap ids = ids_ ? ids_() : PidMap{};
    SampleReading r{params_, ids, window_, {}, {}, {}, {}, {}, {}, tasks_at_end_, {}, {}};
    Sample sample = read_sample(r);
    if (params_.features.timeline)
        sample.timelines = read_timelines(r);
    return sample;
}

std::vector<ThreadEvents> DelayCollector::read_timelines(const SampleReading& r)
{
    const auto name = [&](uint32_t tid) {
        const auto n = r.names.find(tid);
        return n != r.names.end() ? printable(n->second) : std::string("<unknown>");
    };
    const auto local = [&](uint32_t id) { return r.ids.empty() ? id : static_cast<uint32_t>(r.ids.local(id)); };
    std::vector<ThreadEvents> threads;
    for (const auto& [tid, tl] : maps_.entries<uint32_t, kd_timeline>("timelines")) {
        if (tl.gen != 1)
            continue;
        ThreadEvents t;
        t.start_ns = window_.start_ns;
        t.end_ns = window_.end_ns;
        t.tid = local(tid);
        const auto pid = r.pids.find(tid);
        t.pid = pid != r.pids.end() ? local(pid->second) : 0;
        t.thread = name(tid);
        t.process = pid != r.pids.end() ? name(pid->second) : std::string();
        t.first_state = "no event yet";
        append_timeline_events(tl, t.events, t.states_not_kept);
        threads.push_back(std::move(t));
    }
    std::sort(threads.begin(), threads.end(),
              [](const ThreadEvents& a, const ThreadEvents& b) { return a.pid != b.pid ? a.pid < b.pid : a.tid < b.tid; });
    return threads;
}

std::vector<Stall> DelayCollector::take_stalls(std::chrono::steady_clock::time_point deadline)
{
    std::vector<Stall> stalls;
    if (!stall_rings_)
        return stalls;
    if (params_.stall_sites())
        serve_poll_sites();
    // While threads exit, their values go every few ms, so that a churn of
    // thousands of threads a second never fills the maps; the poll wakes on
    // an exit as on a stall.
    constexpr auto kForgetEvery = std::chrono::milliseconds(5);
    for (;;) {
        // A poll takes the rings in no set order: the drain after it reads
        // every stall that came before an exit it read.
        stall_rings_->drain();
        read_stalls(stalls);
        const bool exiting = !exited_.empty();
        forget_exited(maps_, params_, exited_);
        exited_.clear();
        const auto now = std::chrono::steady_clock::now();
        if (!stalls.empty() || now >= deadline)
            return stalls;
        if (exiting)
            std::this_thread::sleep_until(std::min(deadline, now + kForgetEvery));
        else
            stall_rings_->poll_until(deadline);
    }
}

void DelayCollector::learn_process_name(uint32_t tgid, uint32_t tid, const std::string& name)
{
    if (tid != tgid)
        return;
    if (process_names_.size() >= 4096)  // processes come and go in a long watch
        process_names_.clear();
    process_names_[tgid] = name;
}

std::string DelayCollector::process_name(uint32_t tgid)
{
    const auto known = process_names_.find(tgid);
    if (known != process_names_.end())
        return known->second;
    const PidMap ids = ids_ ? ids_() : PidMap{};
    std::string name = kdelay::process_name(static_cast<pid_t>(ids_ ? ids.local(tgid) : tgid));
    learn_process_name(tgid, tgid, name);  // gone (empty) too: asked once
    return name;
}

std::vector<ProgramStats> DelayCollector::program_stats() { return session_.program_stats(); }

uint64_t DelayCollector::skipped_runs() { return session_.skipped_runs(); }

DelayCollector::IntervalCounts DelayCollector::loop_intervals()
{
    std::vector<kd_thread> live;
    threads_tracked_ = 0;
    for (const auto& [slot, t] : maps_.entries<uint32_t, kd_thread>("thread_slots"))
        if (t.tid && ++threads_tracked_ && t.intervals)
            live.push_back(t);
    for (const auto& [tid, t] : maps_.entries<uint32_t, kd_thread>("threads"))
        if (++threads_tracked_ && t.intervals)
            live.push_back(t);
    for (const kd_thread& t : live)
        learn_process_name(t.tgid, static_cast<uint32_t>(t.tid), bounded(t.comm));
    for (const auto& [key, n] : exited_unnamed_)
        exited_intervals_[{process_name(key.first), key.second}] += n;
    exited_unnamed_.clear();
    IntervalCounts counts = exited_intervals_;
    for (const kd_thread& t : live)
        counts[{process_name(t.tgid), bounded(t.comm)}] += t.intervals;
    return counts;
}

void DelayCollector::read_stalls(std::vector<Stall>& stalls)
{
    if (ended_.empty())
        return;
    const PidMap ids = ids_ ? ids_() : PidMap{};
    for (const kd_stall& e : ended_) {
        SampleReading r{params_, ids, BudgetWindow{e.start_ns, e.end_ns}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
        r.interval = ThreadInterval{e.tid, e.gen};
        kd_thread t = e.thread;
        t.long_poll = {};  // the interval is the long poll
        add_thread_entry(r, t);
        r.threads[e.tid];  // shown even when it only ran
        Stall& stall = stalls.emplace_back();
        stall.start_ns = e.start_ns;
        stall.end_ns = e.end_ns;
        stall.voluntary_switches = e.nvcsw;
        stall.involuntary_switches = e.nivcsw;
        stall.process_name = process_name(e.thread.tgid);
        stall.sample = read_sample(r);
        read_stall_extras(e, ids, stall);
        // Its values' keys are free again for the thread's next intervals.
        maps_.erase("stall_reading", static_cast<uint32_t>(KD_KEY_TID(e.tid, e.gen)));
    }
    ended_.clear();
}


void DelayCollector::read_stall_extras(const kd_stall& e, const PidMap& ids, Stall& stall)
{
    const uint32_t key = KD_KEY_TID(e.tid, e.gen);
    if (params_.features.timeline) {
        std::vector<kd_tl_event> events;
        const auto tl = maps_.find<uint32_t, kd_timeline>("timelines", key);
        if (tl && tl->gen == e.gen) {
            append_timeline_events(*tl, events, stall.states_not_kept);
            stall.events_written = tl->head + tl->calls_head;
        }
        stall.timeline = std::move(events);
    }
    if (!params_.features.wait_stacks)
        return;
    const auto waits = maps_.find<uint32_t, kd_wait_stacks>("wait_stacks", key);
    if (!waits || waits->gen != e.gen)
        return;
    // BCC's symbol caches are kept across stalls: the kernel's alone takes
    // tens of milliseconds to build. A process that is gone is not asked
    // again; the cache is bounded for a long watch.
    auto made = symbolizers_.find(e.thread.tgid);
    if (made == symbolizers_.end()) {
        if (symbolizers_.size() >= 64)
            symbolizers_.clear();
        const auto pid = static_cast<pid_t>(ids.empty() ? e.thread.tgid : ids.local(e.thread.tgid));
        made = symbolizers_.emplace(e.thread.tgid, std::make_unique<Symbolizer>(pid)).first;
    }
    Symbolizer& symbols = *made->second;
    for (const kd_wait& w : waits->longest) {
        if (!w.ns)
            continue;
        TimeBudget::LongWait lw{w.start, w.ns, syscall_name(w.nr), {}, w.kernel_stack < 0 || w.user_stack < 0};
        lw.frames = stack_frames(maps_, symbols, w.kernel_stack, w.user_stack);
        stall.longest_waits.push_back(std::move(lw));
    }
    std::sort(stall.longest_waits.begin(), stall.longest_waits.end(),
              [](const TimeBudget::LongWait& a, const TimeBudget::LongWait& b) { return a.ns > b.ns; });
}

Sample DelayCollector::read_sample(SampleReading& r)
{
    const PidMap& ids = r.ids;
    for (const RegisteredSection& s : registered_sections())
        if (s.def->on.is_on(params_.features))
            read_section(maps_, r, *s.def);
    for (const SampleReader& reader : core_readers())
        if (reader.present(params_))
            reader.read(maps_, r);
    Sample& sample = r.sample;
    sample.poll_nr = params_.poll_nr;
    sample.probe_runs_skipped = session_.skipped_runs() - skipped_before_;
    for (auto& [tid, ts] : r.threads) {
        ts.tid = tid;
        auto name = r.names.find(tid);
        ts.name = name != r.names.end() && !name->second.empty() ? name->second : "<unknown>";
        const auto pid = r.pids.find(tid);
        ts.pid = pid != r.pids.end() ? pid->second : params_.tgids.size() == 1 ? params_.tgids.front() : 0;
        by_total_desc(ts.syscalls);
        by_total_desc(ts.hardirqs);
        by_total_desc(ts.softirqs);
        for (auto& [name, rows] : ts.sections)
            by_total_desc(rows);
        by_total_desc(ts.blockio);
        sample.threads.push_back(std::move(ts));
    }
    std::stable_sort(sample.threads.begin(), sample.threads.end(),
                     [this](const ThreadSample& a, const ThreadSample& b) {
                         // By process, in -p's order (a cgroup's by pid), then by name and tid.
                         const auto ra = process_rank(a.pid), rb = process_rank(b.pid);
                         if (ra != rb || a.pid != b.pid)
                             return ra != rb ? ra < rb : a.pid < b.pid;
                         return a.name != b.name ? a.name < b.name : a.tid < b.tid;
                     });
    if (events_)
        sample.events = resolve_events(pending_, maps_, delay_maps::stack_traces(params_), ids);
    if (!ids.empty())
        show_local_ids(sample, ids);
    return std::move(r.sample);
}

void DelayCollector::reset()
{
    pending_.clear();
    for (const DelayMap& m : sample_maps()) {
        if (!m.exists(params_))
            continue;
        if (m.reset == DelayMap::Reset::clear)
            maps_.clear(m.name);
        else
            maps_.zero(m.name);
    }
    set_capture(KD_IDLE);
    skipped_before_ = session_.skipped_runs();
}

std::vector<MapOverflow> DelayCollector::map_full()
{
    std::vector<MapOverflow> full;
    for (const DelayMap& m : sample_maps())
        if (m.full >= 0 && m.exists(params_))
            if (const uint64_t lost = maps_.per_cpu_sum("map_full", static_cast<uint32_t>(m.full)))
                full.push_back({m.what, lost});
    return full;
}

}  // namespace kdelay
