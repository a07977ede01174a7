// A record probe set (probes/*.json with a "usdt" list): which USDT probes
// to record and how to print their arguments.
#pragma once

#include <string>
#include <vector>

namespace kdelay {

struct RecordArg {
    std::string name;
    unsigned pos;      // 0-based USDT argument index
    bool is_string;    // printed 'quoted'; else an integer printed 0x%lx
    unsigned slot;     // index into kd_record.ints or .strs
    // The C type BCC reads the argument as; bpf_usdt_readarg() reads nothing
    // into a variable of another size (a 2-byte qid into a u64 stays 0).
    std::string ctype = "uint64_t";
};

struct RecordProbe {
    std::string name;
    std::vector<RecordArg> args;
};

// How annotate joins recorded probes with SPDK trace entries: an object's
// lifetime runs from a begin record to the next end record with the same key
// (or to the end of time), and the trace argument named `key` is annotated
// with the lifetime's properties. trace.py hard-codes this for qpairs.
struct ObjectAnnotation {
    std::string key;                             // record arg and trace arg, e.g. "qpair"
    std::string tsc = "tsc";                     // record arg holding the TSC
    std::string begin, end;                      // probe names
    std::vector<std::string> begin_properties;   // args of the begin record
    std::string detail;                          // probe adding properties inside the lifetime
    std::vector<std::string> detail_properties;
    std::vector<std::string> tpoints;            // tracepoints annotated by name
    bool any_tpoint_with_key = true;             // also any tracepoint with a `key` argument
};

struct RecordSet {
    std::string provider;
    std::vector<RecordProbe> probes;
    std::vector<ObjectAnnotation> annotations;

    const RecordProbe* find(const std::string& name) const;
};

// Parses and checks a set: names are C identifiers, positions below 12, at
// most 4 string arguments per probe, annotations name probes and arguments
// of the set. Throws Error(Exit::dataerr) naming the
// source and the fault.
RecordSet parse_record_set(const std::string& source, const std::string& json);

// Several sets merged (they must share one provider).
RecordSet merge_record_sets(const std::vector<RecordSet>& sets);

// The sets in `files` merged, or the embedded SPDK nvmf set when there are
// none. Throws Error(Exit::noinput) for a file that cannot be read.
RecordSet load_record_sets(const std::vector<std::string>& files);

}  // namespace kdelay
