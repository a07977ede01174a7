// Addresses to "function+0xoff [module]" with BCC's symbol caches.
#pragma once

#include <cstdint>
#include <functional>
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

    // Reads the kernel's symbols now (some 100 ms, once), not at the
    // first kernel frame: a watch's first stall is then told sooner.
    static void load_kernel();

    pid_t pid() const { return pid_; }
    std::string kernel(uint64_t addr);
    // "[unknown] 0x..." when the address maps to no known symbol and
    // name_unknown_by() gave no other name.
    std::string user(uint64_t addr);
    // Reads the process's maps now, while it runs, not at the first user
    // address (by then it may be gone).
    void load_user();
    // Names a user address BCC finds no symbol for ("": none), from what
    // the caller knows of the process's files (a stripped binary's).
    void name_unknown_by(std::function<std::string(uint64_t)> name) { unnamed_ = std::move(name); }

private:
    std::string resolve(void* cache, uint64_t addr, bool kernel);
    pid_t pid_;
    void* user_cache_ = nullptr;  // made at first use; none for a process that is gone
    bool user_tried_ = false;
    std::unordered_map<uint64_t, std::string> kernel_seen_, user_seen_;
    std::function<std::string(uint64_t)> unnamed_;
};

}  // namespace kdelay
