#include "timeline/perfetto.h"

#include <algorithm>

#include "perfetto_trace.pb.h"

namespace kdelay {
namespace {

namespace pb = perfetto::protos;

// All of kdelay's packets are one writer's sequence.
constexpr uint32_t kSequence = 1;

pb::TracePacket* packet(pb::Trace& trace, uint64_t timestamp)
{
    pb::TracePacket* p = trace.add_packet();
    p->set_trusted_packet_sequence_id(kSequence);
    p->set_timestamp(timestamp);
    return p;
}

void describe(pb::Trace& trace, const TimelineTrack& t)
{
    pb::TracePacket* p = trace.add_packet();
    p->set_trusted_packet_sequence_id(kSequence);
    pb::TrackDescriptor* d = p->mutable_track_descriptor();
    d->set_uuid(t.uuid);
    if (t.parent)
        d->set_parent_uuid(t.parent);
    if (!t.name.empty())
        d->set_name(t.name);
    if (t.tid) {
        pb::ThreadDescriptor* th = d->mutable_thread();
        th->set_pid(static_cast<int32_t>(t.pid));
        th->set_tid(static_cast<int32_t>(t.tid));
        th->set_thread_name(t.thread_name);
    } else if (t.pid) {
        pb::ProcessDescriptor* pr = d->mutable_process();
        pr->set_pid(static_cast<int32_t>(t.pid));
        pr->set_process_name(t.process_name);
    }
}

// A slice's begin (or an instant), with its arguments, stack and flows.
void begin(pb::Trace& trace, const TimelineTrack& t, const TimelineSlice& s)
{
    pb::TrackEvent* e = packet(trace, s.start_ns)->mutable_track_event();
    e->set_type(s.instant ? pb::TrackEvent::TYPE_INSTANT : pb::TrackEvent::TYPE_SLICE_BEGIN);
    e->set_track_uuid(t.uuid);
    e->set_name(s.name);
    for (const auto& [key, value] : s.args) {
        pb::DebugAnnotation* a = e->add_debug_annotations();
        a->set_name(key);
        a->set_string_value(value);
    }
    if (!s.frames.empty()) {
        pb::TrackEvent::Callstack* stack = e->mutable_callstack();
        for (auto frame = s.frames.rbegin(); frame != s.frames.rend(); ++frame)
            stack->add_frames()->set_function_name(*frame);
    }
    for (uint64_t id : s.flows_out)
        e->add_flow_ids(id);
    for (uint64_t id : s.flows_in)
        e->add_terminating_flow_ids(id);
}

void end(pb::Trace& trace, const TimelineTrack& t, uint64_t at)
{
    pb::TrackEvent* e = packet(trace, at)->mutable_track_event();
    e->set_type(pb::TrackEvent::TYPE_SLICE_END);
    e->set_track_uuid(t.uuid);
}

// A track's slices as begins and ends in time order: a slice ends before
// the next one that does not nest in it begins.
void events(pb::Trace& trace, const TimelineTrack& t)
{
    std::vector<uint64_t> open;  // ends of the slices open, innermost last
    for (const TimelineSlice& s : t.slices) {
        while (!open.empty() && open.back() <= s.start_ns) {
            end(trace, t, open.back());
            open.pop_back();
        }
        begin(trace, t, s);
        // A slice that would outlast the one it begins in ends with it:
        // slices on a track nest, and an end closes the innermost.
        if (!s.instant)
            open.push_back(open.empty() ? s.end_ns : std::min(s.end_ns, open.back()));
    }
    while (!open.empty()) {
        end(trace, t, open.back());
        open.pop_back();
    }
}

}  // namespace

std::string perfetto_trace(const Timeline& timeline)
{
    GOOGLE_PROTOBUF_VERIFY_VERSION;
    pb::Trace trace;
    for (const TimelineTrack& t : timeline.tracks)
        describe(trace, t);
    for (const TimelineTrack& t : timeline.tracks)
        events(trace, t);
    return trace.SerializeAsString();
}

}  // namespace kdelay
