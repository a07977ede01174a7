// The stacks of the target's processes, each process's own: its unwinder
// (libdwfl, for --stack-copy's copies) and the symbols of its files, by
// the kernel's tgid, made at first need and gone with the process. The
// stall watch and a sample's profile both read stacks through it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "profile/profile.h"
#include "report/time_budget.h"
#include "sys/dwarf_unwind.h"
#include "sys/pid_map.h"

namespace kdelay {

class MapIo;
class Symbolizer;

// A copy's registers in DWARF's order, by regs_dwarf (KernelLayout's places
// of them in pt_regs), and its stack. record: a kd_stack_copy and its
// bytes. False when the record is not whole or holds no user registers.
bool copy_registers(const void* record, size_t size, const std::vector<uint32_t>& regs_dwarf, DwarfRegs& regs,
                    StackCopy& stack);

// The user stack of a sample: unwound from its copy, unless the frame-
// pointer walk (fp) goes further down the same way (code built with frame
// pointers, deeper than the copy reached).
std::vector<uint64_t> better_stack(std::vector<uint64_t> unwound, std::vector<uint64_t> fp);

// The files of a profile's user frames, by the name the frames give them.
using ProfileModules = std::map<std::string, TimeBudget::Profile::Module>;

class ProcessStacks {
public:
    // maps: the program's, with stack_traces; regs_dwarf: as copy_registers.
    ProcessStacks(MapIo& maps, std::vector<uint32_t> regs_dwarf);
    ~ProcessStacks();

    // The symbol cache of the process of the kernel's tgid (ids: the PID
    // namespace kdelay's /proc names it in; empty: the kernel's own).
    Symbolizer& symbolizer(uint32_t tgid, const PidMap& ids);
    DwarfUnwinder& unwinder(uint32_t tgid, const PidMap& ids);
    // Reads the process's maps now, while it runs, for its stacks named
    // later (a sample's, when it may have exited).
    void load(uint32_t tgid, const PidMap& ids);
    // Names the user addresses now, while the process runs: its files are
    // read when first asked, through /proc/PID/map_files while it maps them.
    void name_now(uint32_t tgid, const PidMap& ids, const std::vector<uint64_t>& pcs);
    // A copy's user stack, unwound (or the frame-pointer walk, user_stack,
    // where that goes further the same way); empty when it cannot be.
    std::vector<uint64_t> unwound(uint32_t tgid, const PidMap& ids, const void* copy, size_t size, int user_stack);
    // A sample's frames, kernel frames first, each innermost first; the
    // files of its user frames go into modules.
    std::vector<std::string> frames(uint32_t tgid, const PidMap& ids, const SampleStacks& st, ProfileModules& modules);
    // A process's caches hold its libraries open: they go, checked once a
    // second, when the process is gone (a watch of a unit that restarts
    // sees a new process each time).
    void forget_gone();

private:
    MapIo& maps_;
    const std::vector<uint32_t> regs_dwarf_;
    // A symbolizer shares its process's unwinder, which outlives it.
    std::map<uint32_t, std::shared_ptr<Symbolizer>> symbolizers_;
    std::map<uint32_t, std::shared_ptr<DwarfUnwinder>> unwinders_;
    std::chrono::steady_clock::time_point next_check_{};
};

}  // namespace kdelay
