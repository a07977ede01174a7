#include "delay/map_readers.h"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "block/block_program.h"
#include "loader/map_io.h"
#include "delay/maps.h"
#include "delay/section.h"
#include "delay/upcalls.h"
#include "sys/process.h"
#include "sys/syscall_names.h"

namespace kdelay {
namespace {

Stat to_stat(const kd_stat& s) { return Stat{s.count, s.total_ns, s.min_ns, s.max_ns}; }

std::optional<Stat> if_any(const kd_stat& s)
{
    if (s.count == 0)
        return std::nullopt;
    return to_stat(s);
}

const char* core_hist_kind(uint32_t kind)
{
    switch (kind) {
    case KD_HIST_SYSCALL: return "syscall";
    case KD_HIST_RUN: return "run";
    case KD_HIST_READY: return "ready";
    case KD_HIST_HARDIRQ: return "hardirq";
    case KD_HIST_SOFTIRQ: return "softirq";
    case KD_HIST_BLOCKED: return "blocked";
    }
    return "unknown";
}

// The entries of a map keyed by thread that r wants, with each key's tid
// made the thread's again (KD_KEY_INTERVAL_BIT off). gen_of gives the
// interval a value was written in.
template <class K, class V, class GenOf>
std::vector<std::pair<K, V>> thread_entries(MapIo& maps, const std::string& map, const SampleReading* r, GenOf gen_of)
{
    std::vector<std::pair<K, V>> entries = maps.entries<K, V>(map);
    std::vector<std::pair<K, V>> wanted;
    wanted.reserve(entries.size());
    for (auto& [k, v] : entries) {
        k.tid = KD_KEY_THREAD(k.tid);
        if (!r || r->wants(k.tid, gen_of(v)))
            wanted.emplace_back(k, v);
    }
    return wanted;
}

kd_gen_t stat_gen(const kd_stat& s) { return s.gen; }
kd_gen_t syscall_gen(const kd_syscall& s) { return s.stat.gen; }

// As stat_merge() in the delay program.
void merge(kd_stat& to, const kd_stat& from)
{
    if (!from.count)
        return;
    if (!to.count || from.min_ns < to.min_ns)
        to.min_ns = from.min_ns;
    to.max_ns = std::max(to.max_ns, from.max_ns);
    to.count += from.count;
    to.total_ns += from.total_ns;
}

void add_buckets(Log2Hist& to, const __u64 (&counts)[KD_HIST_SLOTS])
{
    static_assert(KD_HIST_SLOTS == std::tuple_size_v<decltype(Log2Hist::slots)>);
    for (size_t b = 0; b < KD_HIST_SLOTS; ++b)
        to.slots[b] += counts[b];
}

// The per-CPU syscall runs (kd_recent_runs of each CPU).
std::vector<kd_recent_runs> recent_runs(MapIo& maps) { return maps.per_cpu<kd_recent_runs>("recent", 0); }

// Per thread and syscall number: the syscalls hash plus the runs still in
// the per-CPU slots; only those r wants, given one.
std::map<std::pair<uint32_t, uint32_t>, kd_stat> syscall_stats(MapIo& maps, const std::vector<kd_recent_runs>& recent,
                                                                const SampleReading* r)
{
    std::map<std::pair<uint32_t, uint32_t>, kd_stat> stats;
    for (const auto& [k, s] : thread_entries<kd_syscall_key, kd_syscall>(maps, "syscalls", r, syscall_gen))
        merge(stats[{k.tid, k.nr}], s.stat);  // count 0: only --budget's blocked time
    for (const auto& runs : recent)
        for (const auto& r : runs.run)
            if (r.stat.count)
                merge(stats[{r.tid, r.nr}], r.stat);
    return stats;
}

void read_threads(MapIo& maps, SampleReading& r)
{
    if (r.interval)
        return;  // the stall brought its thread's entry
    // A thread's entry is in its slot of thread_slots, or in the hash.
    auto entries = maps.entries<uint32_t, kd_thread>("thread_slots");
    entries.erase(std::remove_if(entries.begin(), entries.end(), [](const auto& e) { return e.second.tid == 0; }),
                  entries.end());
    for (const auto& [slot, t] : entries)
        r.slot_tids[slot] = static_cast<uint32_t>(t.tid);
    for (auto& e : maps.entries<uint32_t, kd_thread>("threads"))
        entries.push_back(std::move(e));
    for (const auto& [slot, t] : entries)
        add_thread_entry(r, t);
}

void read_syscalls(MapIo& maps, SampleReading& r)
{
    r.recent = recent_runs(maps);
    for (const auto& [key, stat] : syscall_stats(maps, r.recent, &r))
        if (stat.count > 0)
            r.threads[key.first].syscalls.push_back(SyscallStat{key.second, syscall_name(key.second), to_stat(stat)});
}

void read_irqs(MapIo& maps, SampleReading& r)
{
    for (const auto& [k, s] : thread_entries<kd_hardirq_key, kd_stat>(maps, "hardirqs", &r, stat_gen))
        r.threads[k.tid].hardirqs.push_back(IrqStat{bounded(k.name), 0, to_stat(s)});
    for (const auto& [k, s] : thread_entries<kd_softirq_key, kd_stat>(maps, "softirqs", &r, stat_gen))
        r.threads[k.tid].softirqs.push_back(IrqStat{softirq_name(k.vec), k.vec, to_stat(s)});
}

void read_blockio(MapIo& maps, SampleReading& r)
{
    const auto gen = [](const kd_blockio& b) { return b.stat.gen; };
    for (const auto& [k, b] : thread_entries<kd_blockio_key, kd_blockio>(maps, "blockio", &r, gen))
        r.threads[k.tid].blockio.push_back(
            BlockIoStat{disk_name(k.dev), static_cast<char>(k.op), b.bytes, to_stat(b.stat)});
}

// The hist hash, plus the histograms the kernel side keeps beside its fast
// paths: the per-CPU syscall runs' (read with the syscalls, before) and the
// RUN and READY histograms of the threads in their slots. A histogram of a
// thread with nothing else to show is left out.
void read_histograms(MapIo& maps, SampleReading& r)
{
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Log2Hist> hists;
    for (const auto& [k, n] : maps.entries<kd_hist_key, uint64_t>("hist"))
        if (k.slot < Log2Hist{}.slots.size())
            hists[{k.tid, k.kind, k.id}].slots[k.slot] += n;
    const std::vector<kd_recent_runs>& runs = r.recent;
    const std::vector<kd_recent_hists> run_hists = maps.per_cpu<kd_recent_hists>("recent_hists", 0);
    for (size_t cpu = 0; cpu < runs.size() && cpu < run_hists.size(); ++cpu)
        for (size_t i = 0; i < KD_RECENT_RUNS; ++i)
            if (runs[cpu].run[i].stat.count)
                add_buckets(hists[{runs[cpu].run[i].tid, KD_HIST_SYSCALL, runs[cpu].run[i].nr}],
                            run_hists[cpu].count[i]);
    for (const auto& [slot, h] : maps.entries<uint32_t, kd_thread_hists>("thread_hists")) {
        const auto tid = r.slot_tids.find(slot);
        if (tid == r.slot_tids.end())
            continue;
        for (uint32_t i = 0; i < KD_THREAD_HISTS; ++i)
            add_buckets(hists[{tid->second, KD_HIST_RUN + i, 0}], h.count[i]);
    }
    // The plug-in sections' kinds follow the core's.
    for (auto& [key, h] : hists) {
        const auto [tid, kind, id] = key;
        if (!r.threads.count(tid))
            continue;
        if (kind < KD_HIST_CORE_KINDS) {
            const bool syscall = kind == KD_HIST_SYSCALL || kind == KD_HIST_BLOCKED;
            std::string name = syscall ? syscall_name(id) : kind == KD_HIST_SOFTIRQ ? softirq_name(id) : "";
            r.threads[tid].histograms.push_back(LatencyHistogram{core_hist_kind(kind), std::move(name), id, syscall, h});
            continue;
        }
        for (const RegisteredSection& s : registered_sections())
            if (s.hist_kind == static_cast<int>(kind))
                r.threads[tid].histograms.push_back(
                    LatencyHistogram{s.def->hist_name, s.def->row_name(id), id, false, h});
    }
}

// The task iterator's record of tid at the window's end, if any.
const kd_task_now* task_at_end(const SampleReading& r, uint32_t tid)
{
    if (!r.tasks_at_end)
        return nullptr;
    const auto found = r.tasks_at_end->find(tid);
    return found == r.tasks_at_end->end() ? nullptr : &found->second;
}

// Every thread of the target gets a budget: from the program's state where
// it saw the thread (with its blocked time per syscall, its wakers and who
// held its CPU), else from /proc (a thread with no event all window).
void read_budgets(MapIo& maps, SampleReading& r)
{
    std::map<uint32_t, std::map<uint32_t, uint64_t>> blocked;
    for (const auto& [k, s] : thread_entries<kd_syscall_key, kd_syscall>(maps, "syscalls", &r, syscall_gen))
        if (s.blocked_ns)
            blocked[k.tid][k.nr] += s.blocked_ns;
    std::map<uint32_t, std::vector<TimeBudget::Waker>> wakers;
    const auto waker_gen = [](const kd_waker& w) { return w.gen; };
    for (const auto& [k, w] : thread_entries<kd_waker_key, kd_waker>(maps, "wakers", &r, waker_gen))
        wakers[k.tid].push_back({{waker_kind(k.kind), k.waker_tid, w.tgid, bounded(w.comm)}, w.count, w.blocked_ns});
    std::map<uint32_t, std::vector<TimeBudget::Holder>> holders;
    const auto blame_gen = [](const kd_blame& b) { return b.gen; };
    for (const auto& [k, b] : thread_entries<kd_blame_key, kd_blame>(maps, "blame", &r, blame_gen))
        holders[k.tid].push_back({{holder_kind(k.kind), k.holder, b.tgid, bounded(b.comm)}, b.ns});
    // A stall's thread was running at both ends: /proc has nothing to add.
    std::map<uint32_t, ThreadState> now;
    for (pid_t pid : r.interval ? std::vector<pid_t>{} : target_processes(r.params)) {
        // A cgroup's processes are read in kdelay's namespace; -p's are the kernel's.
        const uint32_t local_pid =
            r.params.cgroup ? static_cast<uint32_t>(pid) : r.ids.local(static_cast<uint32_t>(pid));
        for (ThreadState& t : thread_states(static_cast<pid_t>(local_pid))) {
            // /proc numbers threads as kdelay's namespace does; one that
            // has not run since kdelay started keeps that id, unless it is
            // another thread's kernel id.
            const uint32_t local = static_cast<uint32_t>(t.tid);
            if (!r.ids.knows_local(local) && r.ids.knows_kernel(local))
                continue;
            const uint32_t tid = r.ids.kernel(local);
            r.pids.try_emplace(tid, r.ids.kernel(local_pid));
            now[tid] = std::move(t);
        }
    }

    const BudgetParts parts{r.params.layout.throttle.has_value(), r.params.layout.rq_steal.has_value()};
    for (const auto& [tid, b] : r.budgets) {
        ThreadSample& ts = r.threads[tid];
        uint64_t irq_ns = 0;
        for (const auto* irqs : {&ts.hardirqs, &ts.softirqs})
            for (const IrqStat& irq : *irqs)
                irq_ns += irq.stat.total_ns;
        const auto seen = now.find(tid);
        ts.budget = make_budget(b, r.window, blocked[tid], irq_ns, seen == now.end() ? nullptr : &seen->second,
                                task_at_end(r, tid), parts);
        ts.budget->wakers = std::move(wakers[tid]);
        ts.budget->ready_blame.insert(ts.budget->ready_blame.end(), holders[tid].begin(), holders[tid].end());
        std::stable_sort(ts.budget->ready_blame.begin(), ts.budget->ready_blame.end(),
                         [](const TimeBudget::Holder& a, const TimeBudget::Holder& b) { return a.ns > b.ns; });
        std::stable_sort(ts.budget->wakers.begin(), ts.budget->wakers.end(),
                         [](const TimeBudget::Waker& a, const TimeBudget::Waker& b) {
                             return a.blocked_ns > b.blocked_ns;
                         });
    }
    for (const auto& [tid, state] : now) {
        if (r.budgets.count(tid))
            continue;
        ThreadSample& ts = r.threads[tid];
        ts.budget = budget_from_proc(state, r.window, task_at_end(r, tid), parts);
        r.names.try_emplace(tid, state.comm);
    }
}

void read_upcalls(MapIo& maps, SampleReading& r)
{
    std::map<std::pair<uint32_t, int32_t>, uint64_t> counts;
    for (const auto& [k, n] : maps.entries<kd_upcall_key, uint64_t>("upcalls"))
        counts[{k.cpu, k.ret}] += n;
    r.sample.upcalls = upcall_stats(counts, r.params.upcalls == UpcallPlan::Probe::kretprobe);
}

}  // namespace

std::string softirq_name(uint32_t vector)
{
    static const char* const names[] = {"hi",       "timer",   "net_tx", "net_rx",  "block",
                                        "irq_poll", "tasklet", "sched",  "hrtimer", "rcu"};
    return vector < std::size(names) ? names[vector] : "vec_" + std::to_string(vector);
}

WakerKind waker_kind(uint32_t kind)
{
    switch (kind) {
    case KD_WAKER_TASK: return WakerKind::task;
    case KD_WAKER_HARDIRQ: return WakerKind::hardirq;
    case KD_WAKER_SOFTIRQ: return WakerKind::softirq;
    case KD_WAKER_TIMER: return WakerKind::timer;
    }
    return WakerKind::unknown;
}

HolderKind holder_kind(uint32_t kind)
{
    switch (kind) {
    case KD_BLAME_TASK: return HolderKind::task;
    case KD_BLAME_IRQ: return HolderKind::irq;
    }
    return HolderKind::others;  // KD_BLAME_OTHERS
}

const std::vector<SampleReader>& core_readers()
{
    static const std::vector<SampleReader> readers = {
        {"threads", delay_maps::always, read_threads},
        {"syscalls", delay_maps::always, read_syscalls},
        {"hard and soft IRQs", delay_maps::always, read_irqs},
        {"block I/O", delay_maps::block_io, read_blockio},
        {"histograms", delay_maps::histograms, read_histograms},
        {"budget", delay_maps::budget, read_budgets},
        {"upcalls", delay_maps::upcalls, read_upcalls},
    };
    return readers;
}

void read_section(MapIo& maps, SampleReading& r, const ThreadSection& section)
{
    for (const auto& [k, s] : thread_entries<kd_row_key, kd_stat>(maps, section.maps.front().name, &r, stat_gen))
        r.threads[k.tid].sections[section.on.name].push_back(SectionRow{section.row_name(k.id), k.id, to_stat(s)});
}

namespace {

template <class K, class V, class GenOf>
void forget_exited_in(MapIo& maps, const std::string& map, const std::map<uint32_t, kd_gen_t>& exited, GenOf gen_of)
{
    for (const auto& [k, v] : maps.entries<K, V>(map)) {
        const auto e = exited.find(KD_KEY_THREAD(k.tid));
        if (e != exited.end() && gen_of(v) <= e->second)
            maps.erase(map, k);
    }
}

}  // namespace

void forget_exited(MapIo& maps, const DelayProgramParams& params, const std::map<uint32_t, kd_gen_t>& exited)
{
    if (exited.empty())
        return;
    forget_exited_in<kd_syscall_key, kd_syscall>(maps, "syscalls", exited, syscall_gen);
    forget_exited_in<kd_hardirq_key, kd_stat>(maps, "hardirqs", exited, stat_gen);
    forget_exited_in<kd_softirq_key, kd_stat>(maps, "softirqs", exited, stat_gen);
    if (delay_maps::block_io(params))
        forget_exited_in<kd_blockio_key, kd_blockio>(maps, "blockio", exited,
                                                     [](const kd_blockio& b) { return b.stat.gen; });
    if (delay_maps::budget(params)) {
        forget_exited_in<kd_waker_key, kd_waker>(maps, "wakers", exited, [](const kd_waker& w) { return w.gen; });
        forget_exited_in<kd_blame_key, kd_blame>(maps, "blame", exited, [](const kd_blame& b) { return b.gen; });
    }
    // An exit deleted these in the kernel, but an unread stall's.
    for (const auto& [tid, last_gen] : exited)
        for (const uint32_t key : {tid, tid | KD_KEY_INTERVAL_BIT}) {
            if (delay_maps::timeline(params))
                if (const auto tl = maps.find<uint32_t, kd_timeline>("timelines", key); tl && tl->gen <= last_gen)
                    maps.erase("timelines", key);
            if (delay_maps::wait_stacks(params))
                if (const auto w = maps.find<uint32_t, kd_wait_stacks>("wait_stacks", key); w && w->gen <= last_gen)
                    maps.erase("wait_stacks", key);
        }
    for (const RegisteredSection& s : registered_sections())
        if (s.def->on.is_on(params.features))
            forget_exited_in<kd_row_key, kd_stat>(maps, s.def->maps.front().name, exited, stat_gen);
}

void add_thread_entry(SampleReading& r, const kd_thread& t)
{
    const uint32_t tid = static_cast<uint32_t>(t.tid);
    r.names[tid] = bounded(t.comm);
    r.pids[tid] = t.tgid;
    if (delay_maps::budget(r.params))
        r.budgets[tid] = t.budget;
    if (!t.long_poll.count && !t.run.count && !t.ready.count && !t.stopped.count)
        return;  // a thread with nothing else to show is left out
    ThreadSample& ts = r.threads[tid];
    ts.long_poll = if_any(t.long_poll);
    ts.run = if_any(t.run);
    ts.ready = if_any(t.ready);
    ts.stopped = if_any(t.stopped);
}

uint64_t syscall_count(MapIo& maps)
{
    uint64_t n = 0;
    for (const auto& [key, stat] : syscall_stats(maps, recent_runs(maps), nullptr))
        n += stat.count;
    return n;
}

}  // namespace kdelay
