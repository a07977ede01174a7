// A thread's user stack unwound from a copy of its registers and of the top
// of its stack, by the call frame information (.eh_frame, .debug_frame) of
// the files its process maps, through elfutils' libdwfl: whole where the
// code keeps no frame pointer (Debian builds its packages so). Where a
// file has no CFI, libdwfl's x86-64 backend follows the frame pointer.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "sys/process.h"

struct Dwfl;
struct Dwfl_Module;

namespace kdelay {

// x86-64's DWARF registers 0-16: rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp,
// r8-r15, rip.
inline constexpr size_t kDwarfRegs = 17;
using DwarfRegs = std::array<uint64_t, kDwarfRegs>;
// Their names in the kernel's struct pt_regs, in that order.
inline constexpr std::array<const char*, kDwarfRegs> kPtRegsDwarfNames = {
    "ax", "dx", "cx", "bx", "si", "di", "bp", "sp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ip"};

// The copy of a stack: `bytes` bytes that were at user address base.
struct StackCopy {
    uint64_t base = 0;
    const uint8_t* data = nullptr;
    size_t bytes = 0;
};

// Where an address of the process lies: the file mapped there, its GNU
// build-id (hex; "" when it has none), the address as the file's own (an
// ELF virtual address, as addr2line takes it), and the start of the
// function around it by the file's .eh_frame_hdr.
struct CodeAt {
    std::string path;
    std::string build_id;
    uint64_t address = 0;
    std::optional<uint64_t> function;
};

// A path's last component: how frames name a file ("[libc.so.6]").
std::string file_name_of(const std::string& path);

// The frame of an address whose file has no symbol for it: the file's
// name, the function's start as the file's address, and the offset into
// it: "libfoo.so+0x1200+0x34 [libfoo.so]" (without the function's start
// where the file has no call frame information for it).
std::string frame_in_file(const CodeAt& at);

class DwarfUnwinder {
public:
    // pid: the process as kdelay's /proc names it. Its mappings are read
    // now, and again when a stack runs in code mapped since.
    explicit DwarfUnwinder(pid_t pid);
    ~DwarfUnwinder();
    DwarfUnwinder(const DwarfUnwinder&) = delete;
    DwarfUnwinder& operator=(const DwarfUnwinder&) = delete;

    pid_t pid() const { return pid_; }
    // The return addresses of the stack, innermost first, the first being
    // regs' rip; up to max_frames. It ends where the CFI or the copy does.
    std::vector<uint64_t> unwind(const DwarfRegs& regs, const StackCopy& stack, size_t max_frames = 127);

    // The file and function around a user address; nullopt outside any.
    std::optional<CodeAt> code_at(uint64_t pc);
    // "function+0xoff [file]" of a user address, from the file's symbols
    // (or its debug file's), demangled; nullopt where it has none.
    std::optional<std::string> symbol_at(uint64_t pc);

private:
    bool report();
    Dwfl_Module* module_at(uint64_t pc);
    pid_t pid_;
    std::vector<MappedFile> mapped_;  // as the maps were when last read
    Dwfl* dwfl_ = nullptr;
    bool attached_ = false;
    std::chrono::steady_clock::time_point reported_at_{};
    // Each file's functions' starts (.eh_frame_hdr), read at first need.
    std::map<Dwfl_Module*, std::vector<uint64_t>> function_starts_;
};

}  // namespace kdelay
