// --locks: [LOCK CONTENTION STATISTICS], each thread's waits for contended
// kernel locks by kind of lock (bpf/delay/sections/locks.bpf.c): its rows'
// names. Its ThreadSection is a row of registry.cpp.
#include <fmt/format.h>
#include <map>

#include "delay/sections/row_names.h"

namespace kdelay {
namespace {

// lock:contention_begin's flags (the kernel's LCB_F_*), which say the kind
// of lock.
enum : uint32_t {
    kSpin = 0x1,
    kRead = 0x2,
    kWrite = 0x4,
    kRt = 0x8,
    kPercpu = 0x10,
    kMutex = 0x20,
};

}  // namespace

// The names perf lock contention gives the same flags.
std::string lock_kind(uint32_t flags)
{
    static const std::map<uint32_t, const char*> kinds = {
        {kSpin, "spinlock"},
        {kSpin | kRead, "rwlock:R"},
        {kSpin | kWrite, "rwlock:W"},
        {kRead, "rwsem:R"},
        {kWrite, "rwsem:W"},
        {kRt, "rt-mutex"},
        {kRt | kRead, "rwlock-rt:R"},
        {kRt | kWrite, "rwlock-rt:W"},
        {kPercpu | kRead, "pcpu-sem:R"},
        {kPercpu | kWrite, "pcpu-sem:W"},
        {kMutex, "mutex"},
        {kMutex | kSpin, "mutex"},  // spinning on the owner, then maybe sleeping
    };
    const auto it = kinds.find(flags);
    return it != kinds.end() ? it->second : fmt::format("flags {:#x}", flags);
}

}  // namespace kdelay
