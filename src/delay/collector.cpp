#include "delay/collector.h"

#include <algorithm>
#include <cstring>

#include "loader/map_io.h"
#include "loader/session.h"
#include "delay/maps.h"
#include "delay/sample_reading.h"
#include "delay/syscall_events.h"
#include "report/format.h"

namespace kdelay {

DelayCollector::DelayCollector(BpfSession& session, const DelayProgramParams& params, std::function<PidMap()> ids)
    : session_(session), maps_(session.maps()), skipped_before_(session.skipped_runs()), params_(params),
      ids_(std::move(ids))
{
    if (params_.features.syscall_events)
        add_ring("events", [this](const void* data, size_t size) {
            if (size >= sizeof(kd_event))
                pending_.push_back(*static_cast<const kd_event*>(data));
        });
    if (params_.features.profile_hz) {
        profile_ = std::make_unique<WindowProfile>(maps_, params_, ids_);
        if (params_.stack_copy_bytes())
            add_ring("stack_copies", [this](const void* data, size_t size) { profile_->add_copy(data, size); });
    }
    // Ready before a sample's first window ends, so that the tasks' states
    // are read as it ends (stop_capture).
    if (params_.features.budget && params_.layout.task_iterator)
        session_.prepare_iterator("bpf_iter__task");
}

DelayCollector::~DelayCollector() = default;

void DelayCollector::add_ring(const char* map, RingBufferReader::Handler handler)
{
    if (rings_)
        rings_->add(maps_.fd(map), std::move(handler));
    else
        rings_ = std::make_unique<RingBufferReader>(maps_.fd(map), std::move(handler));
}

void DelayCollector::arm()
{
    if (profile_)
        profile_->load({params_.tgids.begin(), params_.tgids.end()});
    note_cpu_limits();
    set_capture(maps_, KD_ARMED);
}

void DelayCollector::note_cpu_limits()
{
    limits_.clear();
    if (!params_.features.budget || !params_.layout.throttle)
        return;
    const PidMap ids = ids_ ? ids_() : PidMap{};
    for (pid_t pid : params_.tgids)
        limits_.look(ids.empty() ? pid : static_cast<pid_t>(ids.local(static_cast<uint32_t>(pid))));
}

void DelayCollector::poll_events(std::chrono::steady_clock::time_point deadline)
{
    if (rings_)
        rings_->poll_until(deadline);
    if (profile_)
        profile_->name_counted_stacks();
}

uint64_t DelayCollector::progress() { return has_events() ? pending_.size() : syscall_count(maps_); }

CaptureState DelayCollector::capture_state()
{
    const auto cap = maps_.element<kd_capture>("capture", 0);
    static const CaptureState::Phase phases[] = {CaptureState::Phase::idle, CaptureState::Phase::capturing,
                                                 CaptureState::Phase::dumping, CaptureState::Phase::armed};
    return CaptureState{cap.state < 4 ? phases[cap.state] : CaptureState::Phase::idle, cap.start_trigger_ns,
                        cap.stop_trigger_ns};
}

uint64_t DelayCollector::trigger_misses() { return stat_counter(maps_, KD_STAT_TRIGGER_MISS); }
uint64_t DelayCollector::events_dropped() { return stat_counter(maps_, KD_STAT_EVENTS_DROPPED); }
uint64_t DelayCollector::bios_lost() { return bios_untracked(maps_, params_); }
std::vector<MapOverflow> DelayCollector::map_full() { return map_overflows(maps_, params_); }

void DelayCollector::start_capture()
{
    if (profile_)
        profile_->load({params_.tgids.begin(), params_.tgids.end()});
    note_cpu_limits();
    set_capture(maps_, KD_CAPTURING);
    // The threads waiting for a CPU as the window opens begin to watch
    // their throttling (bpf_iter__task writes nothing while capturing).
    if (params_.features.budget && params_.layout.task_iterator && params_.layout.throttle)
        session_.run_iterator("bpf_iter__task");
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
    if (rings_)
        rings_->drain();
    if (profile_)
        profile_->name_counted_stacks(true);
}

Sample DelayCollector::collect()
{
    const PidMap ids = ids_ ? ids_() : PidMap{};
    SampleReading r{params_, ids, window_, {}, {}, {}, {}, {}, {}, tasks_at_end_, {}, {}};
    Sample sample = read_sample(maps_, r);
    sample.probe_runs_skipped = session_.skipped_runs() - skipped_before_;
    name_throttling_limits(sample, limits_);
    if (has_events()) {
        sample.events = resolve_events(pending_, maps_, delay_maps::stack_traces(params_), ids);
        if (!ids.empty())
            for (SyscallEvent& e : sample.events) {
                e.tid = ids.local(e.tid);
                e.pid = ids.local(e.pid);
            }
    }
    if (params_.features.timeline)
        sample.timelines = read_timelines(r);
    if (profile_) {
        std::map<uint32_t, TimeBudget::Profile> profiles = profile_->take();
        for (ThreadSample& t : sample.threads) {
            const auto p = profiles.find(ids.kernel(t.tid));
            t.profile = p != profiles.end() ? std::move(p->second) : profile_of(params_.features.profile_hz, {}, {});
        }
    }
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

void DelayCollector::reset()
{
    pending_.clear();
    if (profile_)
        profile_->clear();
    for (const DelayMap& m : sample_maps()) {
        if (!m.exists(params_))
            continue;
        if (m.reset == DelayMap::Reset::clear)
            maps_.clear(m.name);
        else
            maps_.zero(m.name);
    }
    set_capture(maps_, KD_IDLE);
    skipped_before_ = session_.skipped_runs();
}

}  // namespace kdelay
