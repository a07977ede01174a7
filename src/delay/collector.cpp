#include "delay/collector.h"

#include <algorithm>
#include <bcc/BPF.h>
#include <fmt/format.h>
#include <cstring>
#include <ctime>
#include <map>
#include <optional>
#include <tuple>

#include "block/block_program.h"
#include "bpf/map_batch.h"
#include "bpf/session.h"
#include "block_abi.h"
#include "bpf/symbolizer.h"
#include "core/error.h"
#include "delay_abi.h"
#include "delay/maps.h"
#include "delay/section.h"
#include "report/format.h"
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

std::string bounded(const char* s, size_t n) { return std::string(s, strnlen(s, n)); }

// The contract's kinds (delay_abi.h) as the sample names them.
std::string waker_kind(uint32_t kind)
{
    switch (kind) {
    case KD_WAKER_TASK: return "task";
    case KD_WAKER_HARDIRQ: return "hardirq";
    case KD_WAKER_SOFTIRQ: return "softirq";
    case KD_WAKER_TIMER: return "timer";
    }
    return "unknown";
}

std::string blame_kind(uint32_t kind)
{
    switch (kind) {
    case KD_BLAME_TASK: return "task";
    case KD_BLAME_IRQ: return "irq";
    }
    return "others";  // KD_BLAME_OTHERS
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

// A histogram the delay program keeps as an array of KD_HIST_SLOTS counts.
void add_buckets(Log2Hist& to, const __u64 (&counts)[KD_HIST_SLOTS])
{
    static_assert(KD_HIST_SLOTS == std::tuple_size_v<decltype(Log2Hist::slots)>);
    for (size_t b = 0; b < KD_HIST_SLOTS; ++b)
        to.slots[b] += counts[b];
}

template <class T>
void by_total_desc(std::vector<T>& v)
{
    std::stable_sort(v.begin(), v.end(),
                     [](const T& a, const T& b) { return a.stat.total_ns > b.stat.total_ns; });
}

void check(const ebpf::StatusTuple& s, const char* what)
{
    if (!s.ok())
        throw Error(Exit::software, std::string(what) + ": " + s.msg());
}

}  // namespace

std::string softirq_name(uint32_t vector)
{
    static const char* const names[] = {"hi",       "timer",   "net_tx", "net_rx",  "block",
                                        "irq_poll", "tasklet", "sched",  "hrtimer", "rcu"};
    return vector < std::size(names) ? names[vector] : "vec_" + std::to_string(vector);
}

DelayCollector::DelayCollector(BpfSession& session, const DelayProgramParams& params, pid_t pid)
    : session_(session), params_(params), pid_(pid)
{
    if (params_.features.syscall_events)
        events_ = std::make_unique<RingBufferReader>(
            session_.bpf().get_table("events").get_fd(), [this](const void* data, size_t size) {
                if (size >= sizeof(kd_event))
                    pending_.push_back(*static_cast<const kd_event*>(data));
            });
}

DelayCollector::~DelayCollector() = default;

void DelayCollector::arm() { set_capture(KD_ARMED); }

void DelayCollector::poll_events(std::chrono::steady_clock::time_point deadline)
{
    if (events_)
        events_->poll_until(deadline);
}

uint64_t DelayCollector::progress()
{
    if (events_)
        return pending_.size();
    uint64_t n = 0;
    for (const auto& [key, stat] : syscall_stats(recent_runs()))
        n += stat.count;
    return n;
}

std::vector<kd_recent_runs> DelayCollector::recent_runs()
{
    std::vector<kd_recent_runs> per_cpu;
    check(session_.bpf().get_percpu_array_table<kd_recent_runs>("recent").get_value(0, per_cpu),
          "cannot read syscalls");
    return per_cpu;
}

std::map<std::pair<uint32_t, uint32_t>, kd_stat> DelayCollector::syscall_stats(
    const std::vector<kd_recent_runs>& recent)
{
    std::map<std::pair<uint32_t, uint32_t>, kd_stat> stats;
    for (const auto& [k, s] : read_map_as<kd_syscall_key, kd_syscall>(map_fd("syscalls")))
        merge(stats[{k.tid, k.nr}], s.stat);  // count 0: only --budget's blocked time
    for (const auto& runs : recent)
        for (const auto& r : runs.run)
            if (r.stat.count)
                merge(stats[{r.tid, r.nr}], r.stat);
    return stats;
}

CaptureState DelayCollector::capture_state()
{
    kd_capture cap{};
    check(session_.bpf().get_array_table<kd_capture>("capture").get_value(0, cap),
          "cannot read capture state");
    static const CaptureState::Phase phases[] = {CaptureState::Phase::idle, CaptureState::Phase::capturing,
                                                 CaptureState::Phase::dumping, CaptureState::Phase::armed};
    return CaptureState{cap.state < 4 ? phases[cap.state] : CaptureState::Phase::idle,
                        cap.start_trigger_ns, cap.stop_trigger_ns};
}

uint64_t DelayCollector::percpu_sum(const char* table, int index)
{
    const auto sum = session_.percpu_sum(table, index);
    if (!sum)
        throw Error(Exit::software, std::string("cannot read counters of ") + table);
    return *sum;
}

uint64_t DelayCollector::trigger_misses() { return percpu_sum("counters", KD_STAT_TRIGGER_MISS); }
uint64_t DelayCollector::events_dropped() { return percpu_sum("counters", KD_STAT_EVENTS_DROPPED); }
uint64_t DelayCollector::bios_lost() { return delay_maps::block_io(params_) ? percpu_sum("bio_lost", 0) : 0; }

void DelayCollector::set_capture(uint32_t state)
{
    kd_capture cap{};
    cap.state = state;
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);  // the clock of bpf_ktime_get_ns()
    cap.start_ns = static_cast<uint64_t>(now.tv_sec) * 1000000000ull + now.tv_nsec;
    auto table = session_.bpf().get_array_table<kd_capture>("capture");
    check(table.update_value(0, cap), "cannot set capture state");
}

void DelayCollector::start_capture() { set_capture(KD_CAPTURING); }

void DelayCollector::stop_capture()
{
    // A stop trigger may have frozen the maps already; keep its timestamp.
    kd_capture cap{};
    auto table = session_.bpf().get_array_table<kd_capture>("capture");
    check(table.get_value(0, cap), "cannot read capture state");
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    window_.start_ns = cap.start_trigger_ns ? cap.start_trigger_ns : cap.start_ns;
    window_.end_ns = cap.state == KD_DUMPING && cap.stop_trigger_ns
                         ? cap.stop_trigger_ns
                         : static_cast<uint64_t>(now.tv_sec) * 1000000000ull + now.tv_nsec;
    if (cap.state != KD_DUMPING) {
        cap.state = KD_DUMPING;
        check(table.update_value(0, cap), "cannot set capture state");
    }
    if (events_)
        events_->drain();
}

// The sample being read: each map's reader adds its part.
struct DelayCollector::Reading {
    std::map<uint32_t, ThreadSample> threads;
    std::map<uint32_t, std::string> names;
    std::map<uint32_t, kd_budget> budgets;
    std::map<uint32_t, uint32_t> slot_tids;  // thread_slots' index -> the tid there
    std::vector<kd_recent_runs> recent;      // per CPU, read with syscalls
    Sample sample;
};

void DelayCollector::read_threads(Reading& r)
{
    // A thread's entry is in its slot of thread_slots, or in the hash.
    auto entries = read_map_as<uint32_t, kd_thread>(map_fd("thread_slots"));
    entries.erase(std::remove_if(entries.begin(), entries.end(), [](const auto& e) { return e.second.tid == 0; }),
                  entries.end());
    for (const auto& [slot, t] : entries)
        r.slot_tids[slot] = static_cast<uint32_t>(t.tid);
    for (auto& e : read_map_as<uint32_t, kd_thread>(map_fd("threads")))
        entries.push_back(std::move(e));
    for (const auto& [slot, t] : entries) {
        const uint32_t tid = t.tid;
        r.names[tid] = bounded(t.comm, sizeof(t.comm));
        if (delay_maps::budget(params_))
            r.budgets[tid] = t.budget;
        if (!t.long_poll.count && !t.run.count && !t.ready.count && !t.stopped.count)
            continue;  // a thread with nothing else to show is left out
        ThreadSample& ts = r.threads[tid];
        ts.long_poll = if_any(t.long_poll);
        ts.run = if_any(t.run);
        ts.ready = if_any(t.ready);
        ts.stopped = if_any(t.stopped);
    }
}

void DelayCollector::read_syscalls(Reading& r)
{
    r.recent = recent_runs();
    for (const auto& [key, stat] : syscall_stats(r.recent))
        if (stat.count > 0)
            r.threads[key.first].syscalls.push_back(SyscallStat{key.second, syscall_name(key.second), to_stat(stat)});
}

void DelayCollector::read_hardirqs(Reading& r)
{
    for (const auto& [k, s] : read_map_as<kd_hardirq_key, kd_stat>(map_fd("hardirqs")))
        r.threads[k.tid].hardirqs.push_back(IrqStat{bounded(k.name, sizeof(k.name)), 0, to_stat(s)});
}

void DelayCollector::read_softirqs(Reading& r)
{
    for (const auto& [k, s] : read_map_as<kd_softirq_key, kd_stat>(map_fd("softirqs")))
        r.threads[k.tid].softirqs.push_back(IrqStat{softirq_name(k.vec), k.vec, to_stat(s)});
}

// A plug-in section's rows, from its first map.
void DelayCollector::read_section(Reading& r, const ThreadSection& section)
{
    for (const auto& [k, s] : read_map_as<kd_row_key, kd_stat>(map_fd(section.maps.front().name)))
        r.threads[k.tid].sections[section.on.name].push_back(SectionRow{section.row_name(k.id), k.id, to_stat(s)});
}

void DelayCollector::read_blockio(Reading& r)
{
    for (const auto& [k, b] : read_map_as<kd_blockio_key, kd_blockio>(map_fd("blockio")))
        r.threads[k.tid].blockio.push_back(
            BlockIoStat{disk_name(k.dev), static_cast<char>(k.op), b.bytes, to_stat(b.stat)});
}

// After every map that adds threads: a histogram of a thread with nothing
// else to show is left out.
void DelayCollector::read_histograms(Reading& r)
{
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Log2Hist> hists;
    for (const auto& [k, n] : read_map_as<kd_hist_key, uint64_t>(map_fd("hist")))
        if (k.slot < Log2Hist{}.slots.size())
            hists[{k.tid, k.kind, k.id}].slots[k.slot] += n;
    // The syscall histograms of the per-CPU runs still on their CPU (read
    // with the syscalls, before).
    const std::vector<kd_recent_runs>& runs = r.recent;
    std::vector<kd_recent_hists> run_hists;
    check(session_.bpf().get_percpu_array_table<kd_recent_hists>("recent_hists").get_value(0, run_hists),
          "cannot read syscall histograms");
    for (size_t cpu = 0; cpu < runs.size() && cpu < run_hists.size(); ++cpu)
        for (size_t i = 0; i < KD_RECENT_RUNS; ++i)
            if (runs[cpu].run[i].stat.count)
                add_buckets(hists[{runs[cpu].run[i].tid, KD_HIST_SYSCALL, runs[cpu].run[i].nr}],
                            run_hists[cpu].count[i]);
    // The RUN and READY histograms of the threads in their slots.
    for (const auto& [slot, h] : read_map_as<uint32_t, kd_thread_hists>(map_fd("thread_hists"))) {
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
            std::string name = kind == KD_HIST_SYSCALL || kind == KD_HIST_BLOCKED ? syscall_name(id)
                               : kind == KD_HIST_SOFTIRQ                          ? softirq_name(id)
                                                                                  : "";
            r.threads[tid].histograms.push_back(HistogramSample{core_hist_kind(kind), std::move(name), id, h});
            continue;
        }
        for (const RegisteredSection& s : registered_sections())
            if (s.hist_kind == static_cast<int>(kind))
                r.threads[tid].histograms.push_back(HistogramSample{s.def->hist_name, s.def->row_name(id), id, h});
    }
}

// The budget's maps (wakers, blame) are read with the rest of the budget.
void DelayCollector::read_budgets(Reading& r) { add_budgets(r.threads, r.names, r.budgets); }

void DelayCollector::read_upcalls(Reading& r)
{
    std::map<std::pair<uint32_t, int32_t>, uint64_t> counts;
    for (const auto& [k, n] : read_map_as<kd_upcall_key, uint64_t>(map_fd("upcalls")))
        counts[{k.cpu, k.ret}] += n;
    r.sample.upcalls = upcall_stats(counts, params_.upcalls == UpcallPlan::Probe::kretprobe);
}

// How collect() reads each map of kCoreMaps, in the table's order, after the
// plug-in sections' rows (read_section); a map not named here is read with
// another (recent with syscalls, blame with wakers) or holds no sample data
// of its own.
const std::map<std::string, void (DelayCollector::*)(DelayCollector::Reading&)>& DelayCollector::readers()
{
    static const std::map<std::string, void (DelayCollector::*)(Reading&)> table = {
        {"threads", &DelayCollector::read_threads},   {"syscalls", &DelayCollector::read_syscalls},
        {"hardirqs", &DelayCollector::read_hardirqs}, {"softirqs", &DelayCollector::read_softirqs},
        {"blockio", &DelayCollector::read_blockio},
        {"hist", &DelayCollector::read_histograms},   {"wakers", &DelayCollector::read_budgets},
        {"upcalls", &DelayCollector::read_upcalls},
    };
    return table;
}

Sample DelayCollector::collect()
{
    Reading r;
    for (const RegisteredSection& s : registered_sections())
        if (s.def->on.is_on(params_.features))
            read_section(r, *s.def);
    for (const DelayMap& m : kCoreMaps) {
        const auto reader = readers().find(m.name);
        if (m.exists(params_) && reader != readers().end())
            (this->*reader->second)(r);
    }
    Sample& sample = r.sample;
    sample.poll_nr = params_.poll_nr;
    for (auto& [tid, ts] : r.threads) {
        ts.tid = tid;
        auto name = r.names.find(tid);
        ts.name = name != r.names.end() && !name->second.empty() ? name->second : "<unknown>";
        by_total_desc(ts.syscalls);
        by_total_desc(ts.hardirqs);
        by_total_desc(ts.softirqs);
        for (auto& [name, rows] : ts.sections)
            by_total_desc(rows);
        by_total_desc(ts.blockio);
        sample.threads.push_back(std::move(ts));
    }
    std::stable_sort(sample.threads.begin(), sample.threads.end(),
                     [](const ThreadSample& a, const ThreadSample& b) {
                         return a.name != b.name ? a.name < b.name : a.tid < b.tid;
                     });
    if (events_)
        sample.events = resolve_events();
    return std::move(r.sample);
}

std::vector<SyscallEvent> DelayCollector::resolve_events()
{
    std::vector<SyscallEvent> events;
    events.reserve(pending_.size());
    Symbolizer symbols(pid_);
    std::map<uint32_t, std::string> names;
    std::optional<ebpf::BPFStackTable> stacks;
    if (delay_maps::stack_traces(params_))
        stacks.emplace(session_.bpf().get_stack_table("stack_traces"));
    for (const kd_event& e : pending_) {
        auto name = names.try_emplace(e.nr);
        if (name.second)
            name.first->second = syscall_name(e.nr);
        SyscallEvent ev{e.entry_ns, e.exit_ns, e.tid, bounded(e.comm, sizeof(e.comm)),
                        e.nr, name.first->second, {}, false,
                        e.waker_kind == KD_WAKER_NONE
                            ? ""
                            : waker_label(waker_kind(e.waker_kind), bounded(e.waker_comm, sizeof(e.waker_comm)),
                                          e.waker_pid, e.waker_tid)};
        if (stacks) {
            ev.stack_lost = e.kernel_stack < 0 || e.user_stack < 0;
            if (e.kernel_stack >= 0)
                for (uintptr_t addr : stacks->get_stack_addr(e.kernel_stack)) {
                    std::string frame = symbols.kernel(addr);
                    // The stack starts inside kdelay's own program.
                    if (ev.frames.empty() && is_tracer_frame(frame))
                        continue;
                    ev.frames.push_back(std::move(frame));
                }
            if (e.user_stack >= 0)
                for (uintptr_t addr : stacks->get_stack_addr(e.user_stack))
                    ev.frames.push_back(symbols.user(addr));
        }
        events.push_back(std::move(ev));
    }
    return events;
}

// Every thread of the target gets a budget: from the program's state where
// it saw the thread, else from /proc (a thread with no event all window).
void DelayCollector::add_budgets(std::map<uint32_t, ThreadSample>& threads, std::map<uint32_t, std::string>& names,
                                 const std::map<uint32_t, kd_budget>& budgets)
{
    std::map<uint32_t, std::map<uint32_t, uint64_t>> blocked;
    for (const auto& [k, s] : read_map_as<kd_syscall_key, kd_syscall>(map_fd("syscalls")))
        if (s.blocked_ns)
            blocked[k.tid][k.nr] += s.blocked_ns;
    std::map<uint32_t, std::vector<TimeBudget::Waker>> wakers;
    for (const auto& [k, w] : read_map_as<kd_waker_key, kd_waker>(map_fd("wakers"))) {
        wakers[k.tid].push_back({waker_kind(k.kind), k.waker_tid, w.tgid,
                                 bounded(w.comm, sizeof(w.comm)), w.count, w.blocked_ns});
    }
    std::map<uint32_t, std::vector<TimeBudget::Holder>> holders;
    for (const auto& [k, b] : read_map_as<kd_blame_key, kd_blame>(map_fd("blame"))) {
        holders[k.tid].push_back({blame_kind(k.kind), k.holder, b.tgid,
                                  bounded(b.comm, sizeof(b.comm)), b.ns});
    }
    std::map<uint32_t, ThreadState> now;
    for (ThreadState& t : thread_states(pid_))
        now[static_cast<uint32_t>(t.tid)] = std::move(t);

    for (const auto& [tid, b] : budgets) {
        ThreadSample& ts = threads[tid];
        uint64_t irq_ns = 0;
        for (const auto* irqs : {&ts.hardirqs, &ts.softirqs})
            for (const IrqStat& irq : *irqs)
                irq_ns += irq.stat.total_ns;
        const auto seen = now.find(tid);
        ts.budget = make_budget(b, window_, blocked[tid], irq_ns, seen == now.end() ? nullptr : &seen->second);
        ts.budget->wakers = std::move(wakers[tid]);
        ts.budget->ready_blame = std::move(holders[tid]);
        std::stable_sort(ts.budget->ready_blame.begin(), ts.budget->ready_blame.end(),
                         [](const TimeBudget::Holder& a, const TimeBudget::Holder& b) { return a.ns > b.ns; });
        std::stable_sort(ts.budget->wakers.begin(), ts.budget->wakers.end(),
                         [](const TimeBudget::Waker& a, const TimeBudget::Waker& b) {
                             return a.blocked_ns > b.blocked_ns;
                         });
    }
    for (const auto& [tid, state] : now) {
        if (budgets.count(tid))
            continue;
        ThreadSample& ts = threads[tid];
        ts.budget = budget_from_proc(state, window_);
        names.try_emplace(tid, state.comm);
    }
}

int DelayCollector::map_fd(const char* name) { return session_.bpf().get_table(name).get_fd(); }

void DelayCollector::reset()
{
    pending_.clear();
    for (const DelayMap& m : sample_maps()) {
        if (!m.exists(params_))
            continue;
        if (m.reset == DelayMap::Reset::clear)
            clear_map(map_fd(m.name));
        else
            zero_array(map_fd(m.name));
    }
    set_capture(KD_IDLE);
}

std::vector<MapOverflow> DelayCollector::map_full()
{
    std::vector<MapOverflow> full;
    for (const DelayMap& m : sample_maps())
        if (m.full >= 0 && m.exists(params_))
            if (const uint64_t lost = percpu_sum("map_full", m.full))
                full.push_back({m.what, lost});
    return full;
}

}  // namespace kdelay
