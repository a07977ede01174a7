// A streaming reader of `spdk_trace -j` output: memory stays flat however
// many entries the input holds (inputs can be many GB). rapidjson's SAX
// reader takes the definitions and anything unusual; entries of the common
// shape are scanned directly, which is what makes millions a second possible
// (docs/PERFORMANCE.md).
#pragma once

#include <cstdio>
#include <string>

#include "annotate/spdk_trace.h"

namespace kdelay {

class TraceSink {
public:
    virtual ~TraceSink() = default;
    // Called once, when "entries" begins; tsc_rate and tpoints come before it.
    virtual void header(const TraceHeader& header) = 0;
    // Where the reader builds the next entry (reusing its buffers); valid
    // until entry() is called with it. Called again for the same entry when
    // the reader starts it over.
    virtual TraceEntry& next_entry() = 0;
    // The entry from next_entry(), complete and checked.
    virtual void entry(TraceEntry& entry) = 0;
};

// Reads one JSON document from `in` and feeds `sink`. Throws
// Error(Exit::dataerr) naming `name` and the byte offset of the fault, after
// the entries before it were passed on.
void read_spdk_trace(std::FILE* in, const std::string& name, TraceSink& sink);

}  // namespace kdelay
