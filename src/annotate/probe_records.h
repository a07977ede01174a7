// Reads what `kdelay record` (or trace.py's bpftrace script) wrote: one line
// per probe hit, `NAME: arg=0x1f, other='text'`.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "record/record_set.h"

namespace kdelay {

struct RecordValue {
    bool is_string = false;
    uint64_t integer = 0;
    std::string text;
};

struct ProbeRecord {
    const RecordProbe* probe = nullptr;
    size_t line = 0;                  // 1-based
    std::vector<RecordValue> values;  // in probe->args order
};

// Calls fn for each record, in file order (the record is reused: copy what
// you keep). Lines that are not probe records (bpftrace's "Attaching 3 probes...") and
// records of probes not in `set` are skipped, as trace.py skips them. A
// record of a known probe must carry each of its arguments, integers in hex,
// strings optionally 'quoted' (a quoted string may hold commas). Throws
// Error(Exit::dataerr) naming `name` and the line on a malformed record or a
// line longer than 1 MiB.
using RecordCallback = std::function<void(const ProbeRecord&)>;
void for_each_probe_record(std::FILE* in, const std::string& name, const RecordSet& set, const RecordCallback& fn);

// The same, kept in a vector.
std::vector<ProbeRecord> read_probe_records(std::FILE* in, const std::string& name, const RecordSet& set);

// The same, for text already in memory (tests).
std::vector<ProbeRecord> parse_probe_records(const std::string& text, const std::string& name,
                                             const RecordSet& set);

}  // namespace kdelay
