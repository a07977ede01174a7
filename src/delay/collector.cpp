#include "delay/collector.h"

#include <linux/types.h>

#include <algorithm>
#include <bcc/BPF.h>
#include <cstring>
#include <ctime>
#include <map>

#include "bpf/session.h"
#include "core/error.h"
#include "delay_abi.h"
#include "sys/syscall_names.h"

namespace kdelay {
namespace {

static_assert(KD_MAP_COUNT == kDelayMapNames.size());

Stat to_stat(const kd_stat& s) { return Stat{s.count, s.total_ns, s.min_ns, s.max_ns}; }

std::optional<Stat> if_any(const kd_stat& s)
{
    if (s.count == 0)
        return std::nullopt;
    return to_stat(s);
}

std::string bounded(const char* s, size_t n) { return std::string(s, strnlen(s, n)); }

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

const std::array<const char*, 10>& softirq_names()
{
    static const std::array<const char*, 10> names = {
        "hi", "timer", "net_tx", "net_rx", "block", "irq_poll", "tasklet", "sched", "hrtimer", "rcu"};
    return names;
}

DelayCollector::DelayCollector(BpfSession& session, uint32_t poll_nr)
    : session_(session), poll_nr_(poll_nr)
{
}

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
void DelayCollector::stop_capture() { set_capture(KD_DUMPING); }

Sample DelayCollector::collect()
{
    auto& bpf = session_.bpf();
    std::map<uint32_t, ThreadSample> threads;
    std::map<uint32_t, std::string> names;

    for (const auto& [tid, t] : bpf.get_hash_table<uint32_t, kd_thread>("threads").get_table_offline()) {
        names[tid] = bounded(t.comm, sizeof(t.comm));
        ThreadSample ts;
        ts.long_poll = if_any(t.long_poll);
        ts.run = if_any(t.run);
        ts.ready = if_any(t.ready);
        ts.stopped = if_any(t.stopped);
        if (ts.long_poll || ts.run || ts.ready || ts.stopped)
            threads[tid] = std::move(ts);
    }
    for (const auto& [k, s] :
         bpf.get_hash_table<kd_syscall_key, kd_syscall>("syscalls").get_table_offline())
        if (s.stat.count > 0)  // entered but not yet returned: not measured
            threads[k.tid].syscalls.push_back(SyscallStat{k.nr, syscall_name(k.nr), to_stat(s.stat)});
    for (const auto& [k, s] :
         bpf.get_hash_table<kd_hardirq_key, kd_stat>("hardirqs").get_table_offline())
        threads[k.tid].hardirqs.push_back(IrqStat{bounded(k.name, sizeof(k.name)), 0, to_stat(s)});
    for (const auto& [k, s] :
         bpf.get_hash_table<kd_softirq_key, kd_stat>("softirqs").get_table_offline()) {
        const auto& vec_names = softirq_names();
        std::string name = k.vec < vec_names.size() ? vec_names[k.vec] : "vec_" + std::to_string(k.vec);
        threads[k.tid].softirqs.push_back(IrqStat{std::move(name), k.vec, to_stat(s)});
    }

    Sample sample;
    sample.poll_nr = poll_nr_;
    for (auto& [tid, ts] : threads) {
        ts.tid = tid;
        auto name = names.find(tid);
        ts.name = name != names.end() && !name->second.empty() ? name->second : "<unknown>";
        by_total_desc(ts.syscalls);
        by_total_desc(ts.hardirqs);
        by_total_desc(ts.softirqs);
        sample.threads.push_back(std::move(ts));
    }
    std::stable_sort(sample.threads.begin(), sample.threads.end(),
                     [](const ThreadSample& a, const ThreadSample& b) {
                         return a.name != b.name ? a.name < b.name : a.tid < b.tid;
                     });
    return sample;
}

void DelayCollector::reset()
{
    auto& bpf = session_.bpf();
    check(bpf.get_hash_table<uint32_t, kd_thread>("threads").clear_table_non_atomic(), "reset");
    check(bpf.get_hash_table<kd_syscall_key, kd_syscall>("syscalls").clear_table_non_atomic(), "reset");
    check(bpf.get_hash_table<kd_hardirq_key, kd_stat>("hardirqs").clear_table_non_atomic(), "reset");
    check(bpf.get_hash_table<kd_softirq_key, kd_stat>("softirqs").clear_table_non_atomic(), "reset");
    for (const char* slot : {"hardirq_slot", "softirq_slot"}) {
        auto table = bpf.get_percpu_array_table<kd_irq_slot>(slot);
        std::vector<kd_irq_slot> zero(ebpf::BPFTable::get_possible_cpu_count());
        check(table.update_value(0, zero), "reset");
    }
    set_capture(KD_IDLE);
}

std::array<uint64_t, 4> DelayCollector::map_full()
{
    std::array<uint64_t, 4> full{};
    auto table = session_.bpf().get_percpu_array_table<uint64_t>("map_full");
    for (int i = 0; i < KD_MAP_COUNT; ++i) {
        std::vector<uint64_t> per_cpu;
        check(table.get_value(i, per_cpu), "cannot read map_full");
        for (uint64_t n : per_cpu)
            full[i] += n;
    }
    return full;
}

}  // namespace kdelay
