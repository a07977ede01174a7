#include "delay/sample_reading.h"

#include <algorithm>
#include <ctime>

#include "delay/maps.h"
#include "delay/section.h"
#include "loader/map_io.h"

namespace kdelay {
namespace {

template <class T>
void by_total_desc(std::vector<T>& v)
{
    std::stable_sort(v.begin(), v.end(),
                     [](const T& a, const T& b) { return a.stat.total_ns > b.stat.total_ns; });
}

// Where pid is in the target's list (its size: not one of them).
size_t process_rank(const DelayProgramParams& params, uint32_t pid)
{
    const auto& tgids = params.tgids;
    return static_cast<size_t>(std::find(tgids.begin(), tgids.end(), static_cast<pid_t>(pid)) - tgids.begin());
}

// The threads in the ids of kdelay's PID namespace, and any task of that
// namespace named as a waker or holder.
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
}

}  // namespace

Sample read_sample(MapIo& maps, SampleReading& r)
{
    const DelayProgramParams& params = r.params;
    for (const RegisteredSection& s : registered_sections())
        if (s.def->on.is_on(params.features))
            read_section(maps, r, *s.def);
    for (const SampleReader& reader : core_readers())
        if (reader.present(params))
            reader.read(maps, r);
    Sample& sample = r.sample;
    sample.poll_nr = params.poll_nr;
    for (auto& [tid, ts] : r.threads) {
        ts.tid = tid;
        auto name = r.names.find(tid);
        ts.name = name != r.names.end() && !name->second.empty() ? name->second : "<unknown>";
        const auto pid = r.pids.find(tid);
        ts.pid = pid != r.pids.end() ? pid->second : params.tgids.size() == 1 ? params.tgids.front() : 0;
        by_total_desc(ts.syscalls);
        by_total_desc(ts.hardirqs);
        by_total_desc(ts.softirqs);
        for (auto& [name, rows] : ts.sections)
            by_total_desc(rows);
        by_total_desc(ts.blockio);
        sample.threads.push_back(std::move(ts));
    }
    std::stable_sort(sample.threads.begin(), sample.threads.end(),
                     [&params](const ThreadSample& a, const ThreadSample& b) {
                         const auto ra = process_rank(params, a.pid), rb = process_rank(params, b.pid);
                         if (ra != rb || a.pid != b.pid)
                             return ra != rb ? ra < rb : a.pid < b.pid;
                         return a.name != b.name ? a.name < b.name : a.tid < b.tid;
                     });
    if (!r.ids.empty())
        show_local_ids(sample, r.ids);
    return std::move(r.sample);
}

uint64_t monotonic_ns()
{
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
}

void set_capture(MapIo& maps, uint32_t state)
{
    kd_capture cap{};
    cap.state = state;
    cap.start_ns = monotonic_ns();
    maps.set_element("capture", 0, cap);
}

uint64_t stat_counter(MapIo& maps, uint32_t stat) { return maps.per_cpu_sum("counters", stat); }

std::vector<MapOverflow> map_overflows(MapIo& maps, const DelayProgramParams& params)
{
    std::vector<MapOverflow> full;
    for (const DelayMap& m : sample_maps())
        if (m.full >= 0 && m.exists(params))
            if (const uint64_t lost = maps.per_cpu_sum("map_full", static_cast<uint32_t>(m.full)))
                full.push_back({m.what, lost});
    return full;
}

uint64_t bios_untracked(MapIo& maps, const DelayProgramParams& params)
{
    return delay_maps::block_io(params) ? maps.per_cpu_sum("bio_lost", 0) : 0;
}

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

}  // namespace kdelay
