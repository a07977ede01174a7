// Ids as the kernel numbers tasks and as kdelay's PID namespace does. In
// the kernel's own namespace the map is empty and both are the same. A
// process's id is its main thread's, so one map serves threads and
// processes alike.
#pragma once

#include <cstdint>
#include <unordered_map>

namespace kdelay {

class PidMap {
public:
    void add(uint32_t kernel, uint32_t local)
    {
        to_local_[kernel] = local;
        to_kernel_[local] = kernel;
    }
    // The id as kdelay's namespace sees it; a task it has not mapped keeps
    // the kernel's (another namespace's task, named as the kernel does).
    uint32_t local(uint32_t kernel) const
    {
        const auto it = to_local_.find(kernel);
        return it == to_local_.end() ? kernel : it->second;
    }
    uint32_t kernel(uint32_t local) const
    {
        const auto it = to_kernel_.find(local);
        return it == to_kernel_.end() ? local : it->second;
    }
    bool empty() const { return to_local_.empty(); }
    bool knows_kernel(uint32_t id) const { return to_local_.count(id) > 0; }
    bool knows_local(uint32_t id) const { return to_kernel_.count(id) > 0; }

private:
    std::unordered_map<uint32_t, uint32_t> to_local_, to_kernel_;
};

}  // namespace kdelay
