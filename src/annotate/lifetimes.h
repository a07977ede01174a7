// Object lifetimes built from probe records, with trace.py's rules: a
// lifetime runs from a begin record to the next end record of the same key,
// both inclusive, or to the end of time; its properties are the begin
// record's and those of the last detail record inside it; a key with only an
// end record has none; the first lifetime in begin order wins. Lookup is
// O(log L) in the lifetimes of one key.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "annotate/probe_records.h"
#include "record/record_set.h"

namespace kdelay {

struct ObjectProperties {
    // In trace.py's order: ptr (the key, in hex), then begin and detail args.
    std::vector<std::pair<std::string, RecordValue>> items;
    std::string text;  // "qpair(ptr=0x1f, thread=1, ...)", as trace.py prints it
};

class LifetimeIndex {
public:
    // Feed the records with add(), then call finish() before find().
    LifetimeIndex(const ObjectAnnotation& spec, const RecordSet& set);
    LifetimeIndex(const ObjectAnnotation& spec, const RecordSet& set, const std::vector<ProbeRecord>& records);

    // Keeps what the index needs of a record of one of its probes: TSC,
    // key, and the arguments that become properties.
    void add(const ProbeRecord& record);
    void finish();

    const ObjectAnnotation& spec() const { return spec_; }
    size_t size() const { return lifetimes_.size(); }
    // The properties of the first lifetime of `key` that holds `tsc`, or null.
    const ObjectProperties* find(uint64_t key, uint64_t tsc) const;

private:
    enum class Role : uint8_t { begin, end, detail };
    struct Hit {
        uint64_t tsc, key;
        Role role;
        uint32_t values;  // first of its property values in values_
    };
    struct Lifetime {
        uint64_t begin, end;  // TSC, inclusive
        uint32_t properties;
    };
    ObjectAnnotation spec_;
    const RecordProbe* probes_[3];         // by Role
    std::vector<size_t> property_args_[3];  // argument indexes kept, by Role
    size_t tsc_arg_[3], key_arg_[3];
    std::vector<Hit> hits_;                // until finish()
    std::vector<RecordValue> values_;      // until finish()
    std::vector<Lifetime> lifetimes_;  // grouped by key, in begin order
    std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> by_key_;  // first, count
    std::vector<ObjectProperties> properties_;
};

}  // namespace kdelay
