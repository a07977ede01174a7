// Pairs each trace entry's arguments with their names, as trace.py does, and
// finds the object lifetime an argument such as `qpair` falls in.
#pragma once

#include <string>
#include <vector>

#include "annotate/lifetimes.h"
#include "annotate/spdk_trace.h"

namespace kdelay {

struct NamedArg {
    const std::string* name;
    const TraceArg* value;
    uint64_t type;                        // the tpoint argument type at this position
    const ObjectProperties* annotation;  // null when not inside a known lifetime
};

class EntryAnnotator {
public:
    explicit EntryAnnotator(std::vector<LifetimeIndex> objects) : objects_(std::move(objects)) {}

    // Decides, per tracepoint, which objects annotate it: the tracepoints a
    // probe set lists by name (the first of that name, as trace.py finds
    // it), and unless the set says otherwise, any tracepoint with an
    // argument named like the object.
    void prepare(const TraceHeader& header);

    // The entry's arguments by name. trace.py keeps them in a dict, so a
    // repeated name keeps its first position and its last value. Valid
    // until the next call.
    const std::vector<NamedArg>& args(const TraceEntry& entry);

private:
    struct Plan {
        bool unique_names = true;
        std::vector<bool> annotated;  // per object
        std::vector<size_t> key_pos;  // per object; args.size() when absent
    };
    std::vector<LifetimeIndex> objects_;
    const TraceHeader* header_ = nullptr;
    std::vector<Plan> plans_;  // parallel to header_->tpoints
    std::vector<NamedArg> args_;
};

}  // namespace kdelay
