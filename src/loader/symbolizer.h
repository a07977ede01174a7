// Addresses to "function+0xoff [module]" with BCC's symbol caches.
#pragma once

#include <cstdint>
#include <string>
#include <sys/types.h>
#include <unordered_map>

namespace kdelay {

// Whether a symbolized kernel frame belongs to the tracer (the BPF program
// and the tracepoint glue that called it), not to the traced code. Which of
// these a stack holds varies by kernel, so they are matched by name rather
// than skipped by count.
bool is_tracer_frame(const std::string& frame);

class Symbolizer {
public:
    explicit Symbolizer(pid_t pid);
    ~Symbolizer();
    Symbolizer(const Symbolizer&) = delete;
    Symbolizer& operator=(const Symbolizer&) = delete;

    pid_t pid() const { return pid_; }
    std::string kernel(uint64_t addr);
    // "[unknown] 0x..." when the address maps to no known symbol.
    std::string user(uint64_t addr);

private:
    std::string resolve(void* cache, uint64_t addr, bool kernel);
    pid_t pid_;
    void* user_cache_ = nullptr;  // made at first use; none for a process that is gone
    bool user_tried_ = false;
    std::unordered_map<uint64_t, std::string> kernel_seen_, user_seen_;
};

}  // namespace kdelay
