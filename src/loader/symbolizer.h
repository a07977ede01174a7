// Addresses to "function+0xoff [module]": the kernel's with BCC's symbol
// cache of /proc/kallsyms, a process's from the symbols of the files it
// maps, read with libdwfl (sys/dwarf_unwind), each the very file it maps.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <sys/types.h>
#include <memory>
#include <unordered_map>

namespace kdelay {

class DwarfUnwinder;

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
    // Names a user address no file has a symbol for ("": none), from what
    // the caller knows of the process's files (a stripped binary's).
    void name_unknown_by(std::function<std::string(uint64_t)> name) { unnamed_ = std::move(name); }
    // Reads the process's files through files (the caller's unwinder of
    // the process) rather than an unwinder of its own.
    void read_files_by(std::shared_ptr<DwarfUnwinder> files) { files_ = std::move(files); }

private:
    pid_t pid_;
    // The caller's, or made at first use (none for a process that is gone).
    std::shared_ptr<DwarfUnwinder> files_;
    bool user_tried_ = false;
    std::unordered_map<uint64_t, std::string> kernel_seen_, user_seen_;
    std::function<std::string(uint64_t)> unnamed_;
};

}  // namespace kdelay
