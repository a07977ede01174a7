#include "profile/process_stacks.h"

#include <algorithm>
#include <cstring>

#include <linux/types.h>

#include "delay_abi.h"
#include "loader/map_io.h"
#include "loader/symbolizer.h"
#include "profile/stack_frames.h"
#include "sys/process.h"

namespace kdelay {

bool copy_registers(const void* record, size_t size, const std::vector<uint32_t>& regs_dwarf, DwarfRegs& regs,
                    StackCopy& stack)
{
    kd_stack_copy c;
    if (size < sizeof(c) || regs_dwarf.size() != kDwarfRegs)
        return false;
    std::memcpy(&c, record, sizeof(c));
    if (!c.base || c.regs_bytes > sizeof(c.regs) || size - sizeof(c) < c.bytes)
        return false;
    for (size_t i = 0; i < kDwarfRegs; ++i) {
        if (regs_dwarf[i] + sizeof(uint64_t) > c.regs_bytes)
            return false;
        std::memcpy(&regs[i], reinterpret_cast<const uint8_t*>(c.regs) + regs_dwarf[i], sizeof(uint64_t));
    }
    stack = StackCopy{c.base, static_cast<const uint8_t*>(record) + sizeof(c), c.bytes};
    return true;
}

std::vector<uint64_t> better_stack(std::vector<uint64_t> unwound, std::vector<uint64_t> fp)
{
    if (fp.size() > unwound.size() && std::equal(unwound.begin(), unwound.end(), fp.begin()))
        return fp;
    return unwound.empty() ? fp : unwound;
}

namespace {

// A process's cache, by the kernel's tgid: made at first need for the
// process as kdelay's /proc names it, kept across its stalls and samples,
// and bounded for a long watch.
template <class T>
std::pair<std::shared_ptr<T>, bool> per_process(std::map<uint32_t, std::shared_ptr<T>>& made, uint32_t tgid,
                                                const PidMap& ids)
{
    auto it = made.find(tgid);
    const bool fresh = it == made.end();
    if (fresh) {
        if (made.size() >= 64)
            made.clear();
        const auto pid = static_cast<pid_t>(ids.empty() ? tgid : ids.local(tgid));
        it = made.emplace(tgid, std::make_shared<T>(pid)).first;
    }
    return {it->second, fresh};
}

}  // namespace

ProcessStacks::ProcessStacks(MapIo& maps, std::vector<uint32_t> regs_dwarf)
    : maps_(maps), regs_dwarf_(std::move(regs_dwarf))
{
}

ProcessStacks::~ProcessStacks() = default;

// The kernel's symbol cache, one for all, is loader/symbolizer's.
Symbolizer& ProcessStacks::symbolizer(uint32_t tgid, const PidMap& ids)
{
    auto [symbols, fresh] = per_process(symbolizers_, tgid, ids);
    if (fresh) {
        // The process's files are read once, for its names and its unwinds;
        // a stripped file's frames are the file and the function's start.
        std::shared_ptr<DwarfUnwinder> files = per_process(unwinders_, tgid, ids).first;
        symbols->read_files_by(files);
        symbols->name_unknown_by([files](uint64_t addr) {
            const auto at = files->code_at(addr);
            return at ? frame_in_file(*at) : std::string();
        });
    }
    return *symbols;
}

DwarfUnwinder& ProcessStacks::unwinder(uint32_t tgid, const PidMap& ids)
{
    return *per_process(unwinders_, tgid, ids).first;
}

void ProcessStacks::load(uint32_t tgid, const PidMap& ids)
{
    if (!symbolizers_.count(tgid))
        symbolizer(tgid, ids).load_user();
    unwinder(tgid, ids);
}

void ProcessStacks::name_now(uint32_t tgid, const PidMap& ids, const std::vector<uint64_t>& pcs)
{
    Symbolizer& symbols = symbolizer(tgid, ids);
    for (const uint64_t pc : pcs)
        symbols.user(pc);
}

std::vector<uint64_t> ProcessStacks::unwound(uint32_t tgid, const PidMap& ids, const void* copy, size_t size,
                                             int user_stack)
{
    DwarfRegs regs{};
    StackCopy stack;
    if (!copy_registers(copy, size, regs_dwarf_, regs, stack))
        return {};
    return better_stack(unwinder(tgid, ids).unwind(regs, stack), maps_.stack("stack_traces", user_stack));
}

std::vector<std::string> ProcessStacks::frames(uint32_t tgid, const PidMap& ids, const SampleStacks& st,
                                               ProfileModules& modules)
{
    const std::vector<uint64_t> user = st.user_pcs.empty() ? maps_.stack("stack_traces", st.user_stack) : st.user_pcs;
    const std::shared_ptr<DwarfUnwinder> files = per_process(unwinders_, tgid, ids).first;
    for (const uint64_t pc : user)
        if (const auto at = files->code_at(pc))
            modules[file_name_of(at->path)] = {at->path, at->build_id};
    return stack_frames(maps_, symbolizer(tgid, ids), st.kernel_stack, user);
}

void ProcessStacks::forget_gone()
{
    const auto now = std::chrono::steady_clock::now();
    if ((symbolizers_.empty() && unwinders_.empty()) || now < next_check_)
        return;
    next_check_ = now + std::chrono::seconds(1);
    for (auto it = symbolizers_.begin(); it != symbolizers_.end();)
        it = process_alive(it->second->pid()) ? std::next(it) : symbolizers_.erase(it);
    for (auto it = unwinders_.begin(); it != unwinders_.end();)
        it = process_alive(it->second->pid()) ? std::next(it) : unwinders_.erase(it);
}

}  // namespace kdelay
