// What `spdk_trace -j` prints: tracepoint definitions, then entries. The
// reader fills these; the writers print them.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace kdelay {

enum class TpointArgType : uint64_t { integer = 0, pointer = 1, string = 2 };

struct TpointArg {
    std::string name;
    uint64_t type = 0;  // TpointArgType, or a newer type printed as is
};

struct Tpoint {
    std::string name;
    uint64_t id = 0;
    bool new_object = false;
    std::vector<TpointArg> args;
};

struct TraceHeader {
    uint64_t tsc_rate = 0;
    std::vector<Tpoint> tpoints;                           // in file order, ids unique
    std::unordered_map<std::string, std::string> owners;  // SPDK >= 26.05: id -> description
};

struct TraceArg {
    bool is_string = false;
    uint64_t integer = 0;
    std::string text;
};

// One entry. The strings are buffers the reader reuses, so an entry is valid
// only during the callback that receives it.
struct TraceEntry {
    uint64_t index = 0;   // 0-based position in "entries"
    uint64_t offset = 0;  // byte offset of the entry in the input
    uint64_t lcore = 0;
    const Tpoint* tpoint = nullptr;
    uint64_t tsc = 0;
    bool has_poller = false;
    std::string poller;
    bool has_owner = false;
    std::string owner;  // the owner id as written (number or string)
    uint64_t size = 0;  // 0 when absent
    bool has_object = false;
    bool has_object_id = false;
    std::string object_id;
    bool has_time = false;
    uint64_t time = 0;  // TSC ticks since the object was created
    bool has_value = false;
    uint64_t value = 0;
    bool has_related = false;
    std::string related;
    size_t arg_count = 0;
    std::vector<TraceArg> args;  // the first arg_count are this entry's
};

}  // namespace kdelay
