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

struct RecordSet {
    std::string provider;
    std::vector<RecordProbe> probes;
};

// Parses and checks a set: names are C identifiers, positions below 12, at
// most 4 string arguments per probe. Throws Error(Exit::dataerr) naming the
// source and the fault.
RecordSet parse_record_set(const std::string& source, const std::string& json);

// Several sets merged (they must share one provider).
RecordSet merge_record_sets(const std::vector<RecordSet>& sets);

}  // namespace kdelay
