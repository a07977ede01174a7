#include "stall/stall_reader.h"

#include <algorithm>
#include <set>
#include <thread>

#include "delay/budget.h"
#include "delay/map_readers.h"
#include "delay/sample_reading.h"
#include "profile/stack_frames.h"
#include "loader/map_io.h"
#include "loader/symbolizer.h"
#include "stall/poll_sites.h"
#include "stall/stall_profile.h"
#include "sys/process.h"
#include "sys/syscall_names.h"

namespace kdelay {

StallReader::StallReader(BpfSession& session, const DelayProgramParams& params, std::function<PidMap()> ids)
    : session_(session), maps_(session.maps()), skipped_before_(session.skipped_runs()), params_(params),
      ids_(std::move(ids)), stacks_(maps_, params.layout.regs_dwarf)
{
    // Exits first: drain() then takes the stalls after, and a stall of
    // an exited thread came before its exit.
    rings_ = std::make_unique<RingBufferReader>(maps_.fd("exits"), [this](const void* data, size_t size) {
        if (size >= sizeof(kd_exit)) {
            const auto* e = static_cast<const kd_exit*>(data);
            exited_[e->tid] = e->last_gen;
            learn_process_name(e->tgid, e->tgid, bounded(e->process));
            if (e->intervals)
                exited_unnamed_[{e->tgid, bounded(e->comm)}] += e->intervals;
        }
    });
    rings_->add(maps_.fd("stalls"), [this](const void* data, size_t size) {
        if (size >= sizeof(kd_stall))
            ended_.push_back(*static_cast<const kd_stall*>(data));
    });
    // After the stalls: a stall's copies were sent before it.
    if (params_.stack_copy_bytes())
        rings_->add(maps_.fd("stack_copies"),
                    [this](const void* data, size_t size) { stack_copies_.add(data, size); });
}

StallReader::~StallReader() = default;

void StallReader::start()
{
    if (params_.features.profile_hz || params_.features.wait_stacks)
        Symbolizer::load_kernel();
    if (params_.stall_sites())
        serve_poll_sites(target_processes(params_));
    set_capture(maps_, KD_CAPTURING);
}

uint64_t StallReader::stalls_dropped() { return stat_counter(maps_, KD_STAT_STALLS_DROPPED); }
uint64_t StallReader::stalls_unwatched() { return stat_counter(maps_, KD_STAT_STALLS_UNWATCHED); }
uint64_t StallReader::exits_dropped() { return stat_counter(maps_, KD_STAT_EXITS_DROPPED); }
uint64_t StallReader::profile_samples_lost() { return stat_counter(maps_, KD_STAT_PROFILE_LOST); }
uint64_t StallReader::stack_copies_lost() { return stat_counter(maps_, KD_STAT_STACK_COPIES_LOST); }
uint64_t StallReader::bios_lost() { return bios_untracked(maps_, params_); }
std::vector<MapOverflow> StallReader::map_full() { return map_overflows(maps_, params_); }
std::vector<ProgramStats> StallReader::program_stats() { return session_.program_stats(); }
uint64_t StallReader::skipped_runs() { return session_.skipped_runs(); }

void StallReader::serve_poll_sites(std::vector<pid_t> pids)
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

std::vector<Stall> StallReader::take_stalls(std::chrono::steady_clock::time_point deadline)
{
    std::vector<Stall> stalls;
    if (!rings_)
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
        rings_->drain();
        read_stalls(stalls);
        sweep_stack_table();
        stacks_.forget_gone();
        const bool exiting = !exited_.empty();
        forget_exited(maps_, params_, exited_);
        for (const auto& [tid, gen] : exited_)
            stack_copies_.forget(tid);
        exited_.clear();
        const auto now = std::chrono::steady_clock::now();
        if (!stalls.empty() || now >= deadline)
            return stalls;
        if (exiting)
            std::this_thread::sleep_until(std::min(deadline, now + kForgetEvery));
        else
            rings_->poll_until(deadline);
    }
}

void StallReader::learn_process_name(uint32_t tgid, uint32_t tid, const std::string& name)
{
    if (tid != tgid)
        return;
    if (process_names_.size() >= 4096)  // processes come and go in a long watch
        process_names_.clear();
    process_names_[tgid] = name;
}

std::string StallReader::process_name(uint32_t tgid)
{
    const auto known = process_names_.find(tgid);
    if (known != process_names_.end())
        return known->second;
    const PidMap ids = ids_ ? ids_() : PidMap{};
    std::string name = kdelay::process_name(static_cast<pid_t>(ids_ ? ids.local(tgid) : tgid));
    learn_process_name(tgid, tgid, name);  // gone (empty) too: asked once
    return name;
}

StallReader::IntervalCounts StallReader::loop_intervals()
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

void StallReader::read_stalls(std::vector<Stall>& stalls)
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
        stall.sample = read_sample(maps_, r);
        name_throttling_limits(stall.sample, limits_);
        stall.sample.probe_runs_skipped = session_.skipped_runs() - skipped_before_;
        read_stall_extras(e, ids, stall);
        // An exit deleted the thread's profile store in the kernel but an
        // unread stall's, this one: it goes now, not through a read of each
        // exited thread's 16 KiB store (a churn of thousands of threads a
        // second).
        if (const auto gone = exited_.find(e.tid); params_.features.profile_hz && gone != exited_.end() &&
                                                   e.gen <= gone->second)
            maps_.erase("profiles", static_cast<uint32_t>(KD_KEY_TID(e.tid, e.gen)));
        // Its values' keys are free again for the thread's next intervals.
        maps_.erase("stall_reading", static_cast<uint32_t>(KD_KEY_TID(e.tid, e.gen)));
    }
    ended_.clear();
}


void StallReader::read_stall_extras(const kd_stall& e, const PidMap& ids, Stall& stall)
{
    const uint32_t key = KD_KEY_TID(e.tid, e.gen);
    const StackCopies::Interval copies = stack_copies_.take(e.tid, e.gen);
    if (params_.features.timeline) {
        std::vector<kd_tl_event> events;
        const auto tl = maps_.find<uint32_t, kd_timeline>("timelines", key);
        if (tl && tl->gen == e.gen) {
            append_timeline_events(*tl, events, stall.states_not_kept);
            stall.events_written = tl->head + tl->calls_head;
        }
        stall.timeline = std::move(events);
    }
    if (params_.features.profile_hz) {
        const auto kept = maps_.find<uint32_t, kd_profile>("profiles", key);
        if (kept && kept->gen == e.gen) {
            ProfileModules modules;
            const FramesOf frames_of = [&](const SampleStacks& st) {
                return stacks_.frames(e.thread.tgid, ids, st, modules);
            };
            UnwoundOf unwound;
            if (!copies.samples.empty())
                unwound = [&](uint32_t sample, int user_stack) {
                    const auto copy = copies.samples.find(sample);
                    return copy == copies.samples.end()
                               ? std::vector<uint64_t>{}
                               : stacks_.unwound(e.thread.tgid, ids, copy->second.data(), copy->second.size(),
                                                 user_stack);
                };
            stall.profile = stall_profile(*kept, params_.features.profile_hz, frames_of, unwound, e.start_ns,
                                          params_.features.timeline ? &stall.profile_samples : nullptr);
            stall.profile->modules = std::move(modules);
        }
    }
    if (!params_.features.wait_stacks)
        return;
    const auto waits = maps_.find<uint32_t, kd_wait_stacks>("wait_stacks", key);
    if (!waits || waits->gen != e.gen)
        return;
    Symbolizer& symbols = stacks_.symbolizer(e.thread.tgid, ids);
    // A wait's copy, or else that of another kept wait of the same
    // frame-pointer stack (several waits of one syscall: its last is copied).
    const auto copy_of = [&](const kd_wait& w) -> const std::vector<uint8_t>* {
        if (const auto own = copies.waits.find(w.start); own != copies.waits.end())
            return &own->second;
        for (const kd_wait& other : waits->longest)
            if (other.ns && other.user_stack >= 0 && other.user_stack == w.user_stack)
                if (const auto c = copies.waits.find(other.start); c != copies.waits.end())
                    return &c->second;
        return nullptr;
    };
    for (const kd_wait& w : waits->longest) {
        if (!w.ns)
            continue;
        const std::vector<uint8_t>* copy = copy_of(w);
        const std::vector<uint64_t> pcs =
            copy ? stacks_.unwound(e.thread.tgid, ids, copy->data(), copy->size(), w.user_stack)
                 : std::vector<uint64_t>{};
        TimeBudget::LongWait lw{w.start, w.ns, syscall_name(w.nr), {},
                                w.kernel_stack < 0 || (w.user_stack < 0 && pcs.empty())};
        lw.frames = pcs.empty() ? stack_frames(maps_, symbols, w.kernel_stack, w.user_stack)
                                : stack_frames(maps_, symbols, w.kernel_stack, pcs);
        stall.longest_waits.push_back(std::move(lw));
    }
    std::sort(stall.longest_waits.begin(), stall.longest_waits.end(),
              [](const TimeBudget::LongWait& a, const TimeBudget::LongWait& b) { return a.ns > b.ns; });
}

void StallReader::sweep_stack_table()
{
    constexpr auto kEvery = std::chrono::seconds(10);
    const auto now = std::chrono::steady_clock::now();
    if (!params_.features.profile_hz || now < next_sweep_)
        return;
    next_sweep_ = now + kEvery;
    std::vector<uint32_t> ids = maps_.keys32("stack_traces");
    // A new stack is lost about as often as the share of slots taken: the
    // short intervals' stacks stay until swept.
    if (ids.size() < params_.features.stack_trace_size / 16)
        return;
    std::set<uint32_t> kept;
    const auto keep = [&](int id) {
        if (id >= 0)
            kept.insert(static_cast<uint32_t>(id));
    };
    for (const auto& [key, p] : maps_.entries<uint32_t, kd_profile>("profiles"))
        for (uint32_t i = 0; i < std::min<uint32_t>(p.taken, KD_PROFILE_SAMPLES); ++i)
            keep(p.samples[i].kernel_stack), keep(p.samples[i].user_stack);
    if (params_.features.wait_stacks)
        for (const auto& [key, w] : maps_.entries<uint32_t, kd_wait_stacks>("wait_stacks")) {
            keep(w.wait_kernel_stack), keep(w.wait_user_stack);
            for (const kd_wait& x : w.longest)
                keep(x.kernel_stack), keep(x.user_stack);
        }
    for (const uint32_t id : ids)
        if (!kept.count(id))
            maps_.erase("stack_traces", id);
}

}  // namespace kdelay
