#include "timeline/perfetto.h"

#include <algorithm>
#include <map>
#include <tuple>

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

// Interning ids of the samples' strings, mappings, frames and stacks: each
// table its own count from 1, as Perfetto's interning wants.
class Interner {
public:
    Interner(pb::InternedData& data, const std::map<std::string, std::string>& build_ids)
        : data_(data), build_ids_(build_ids)
    {
    }

    uint64_t callstack(const std::vector<std::string>& frames)
    {
        auto [it, fresh] = callstacks_.try_emplace(frames, callstacks_.size() + 1);
        if (fresh) {
            pb::Callstack* c = data_.add_callstacks();
            c->set_iid(it->second);
            for (const std::string& f : frames)
                c->add_frame_ids(frame(f));
        }
        return it->second;
    }

private:
    // "function [module]": the function interned under the module's mapping;
    // the samples are grouped by function, so every frame's rel_pc is 0.
    uint64_t frame(const std::string& f)
    {
        auto [it, fresh] = frames_.try_emplace(f, frames_.size() + 1);
        if (fresh) {
            const size_t open = f.rfind(" [");
            const bool has_module = open != std::string::npos && f.back() == ']';
            pb::Frame* fr = data_.add_frames();
            fr->set_iid(it->second);
            fr->set_function_name_id(string(function_names_, data_.mutable_function_names(),
                                             has_module ? f.substr(0, open) : f));
            fr->set_mapping_id(mapping(has_module ? f.substr(open + 2, f.size() - open - 3) : "[unknown]"));
            fr->set_rel_pc(0);
        }
        return it->second;
    }

    uint64_t mapping(const std::string& module)
    {
        auto [it, fresh] = mappings_.try_emplace(module, mappings_.size() + 1);
        if (fresh) {
            pb::Mapping* m = data_.add_mappings();
            m->set_iid(it->second);
            m->add_path_string_ids(string(paths_, data_.mutable_mapping_paths(), module));
            // The build-id's bytes, as Perfetto's profilers intern it.
            if (const auto id = build_ids_.find(module); id != build_ids_.end() && !id->second.empty())
                m->set_build_id(string(build_id_ids_, data_.mutable_build_ids(), bytes_of_hex(id->second)));
        }
        return it->second;
    }

    template <class Table>
    static uint64_t string(std::map<std::string, uint64_t>& ids, Table* table, const std::string& s)
    {
        auto [it, fresh] = ids.try_emplace(s, ids.size() + 1);
        if (fresh) {
            pb::InternedString* i = table->Add();
            i->set_iid(it->second);
            i->set_str(s);
        }
        return it->second;
    }

    static std::string bytes_of_hex(const std::string& hex)
    {
        std::string bytes;
        for (size_t i = 0; i + 1 < hex.size(); i += 2)
            bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
        return bytes;
    }

    pb::InternedData& data_;
    const std::map<std::string, std::string>& build_ids_;
    std::map<std::string, uint64_t> function_names_, paths_, frames_, mappings_, build_id_ids_;
    std::map<std::vector<std::string>, uint64_t> callstacks_;
};

// The samples as PerfSample packets, after one packet that clears the
// sequence's interning state and holds every stack they use.
void samples(pb::Trace& trace, const std::vector<TimelineSample>& all,
             const std::map<std::string, std::string>& build_ids)
{
    if (all.empty())
        return;
    pb::TracePacket* first = packet(trace, all.front().at_ns);
    first->set_sequence_flags(pb::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
    Interner interned(*first->mutable_interned_data(), build_ids);
    std::vector<uint64_t> stacks;
    stacks.reserve(all.size());
    for (const TimelineSample& s : all)
        stacks.push_back(interned.callstack(s.frames));
    for (size_t i = 0; i < all.size(); ++i) {
        pb::TracePacket* p = packet(trace, all[i].at_ns);
        p->set_sequence_flags(pb::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE);
        pb::PerfSample* s = p->mutable_perf_sample();
        s->set_pid(all[i].pid);
        s->set_tid(all[i].tid);
        s->set_callstack_iid(stacks[i]);
        s->set_cpu_mode(all[i].in_kernel ? pb::Profiling::MODE_KERNEL : pb::Profiling::MODE_USER);
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
    samples(trace, timeline.samples, timeline.build_ids);
    return trace.SerializeAsString();
}

}  // namespace kdelay
