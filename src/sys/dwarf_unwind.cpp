#include "sys/dwarf_unwind.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/openat2.h>
#include <string>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys/elf_sections.h"
#include "sys/process.h"

namespace kdelay {

namespace {

// What the thread callbacks read: the registers and stack of the unwind
// in progress on this thread. One Dwfl serves every unwind of a process,
// so they are not its attached argument.
struct Unwinding {
    const DwarfRegs* regs = nullptr;
    StackCopy stack;
};
thread_local Unwinding t_unwinding;

pid_t next_thread(Dwfl*, void*, void** thread_arg)
{
    // dwfl_getthread_frames asks get_thread; this is only for dwfl_getthreads.
    *thread_arg = nullptr;
    return 0;
}

bool get_thread(Dwfl*, pid_t, void*, void** thread_arg)
{
    *thread_arg = &t_unwinding;
    return true;
}

// Only the copy: an address outside it is not read from the live process,
// whose stack has moved on since the sample.
bool memory_read(Dwfl*, Dwarf_Addr addr, Dwarf_Word* result, void*)
{
    const StackCopy& s = t_unwinding.stack;
    if (addr < s.base || addr - s.base > s.bytes || s.bytes - (addr - s.base) < sizeof(*result))
        return false;
    std::memcpy(result, s.data + (addr - s.base), sizeof(*result));
    return true;
}

bool set_initial_registers(Dwfl_Thread* thread, void* thread_arg)
{
    const auto* u = static_cast<const Unwinding*>(thread_arg);
    Dwarf_Word regs[kDwarfRegs];
    for (size_t i = 0; i < kDwarfRegs; ++i)
        regs[i] = (*u->regs)[i];
    return dwfl_thread_state_registers(thread, 0, kDwarfRegs, regs);
}

const Dwfl_Thread_Callbacks kThreadCallbacks = {next_thread, get_thread, memory_read, set_initial_registers,
                                                nullptr, nullptr};

// The process whose files the calls in progress on this thread open, and
// the files it maps.
thread_local pid_t t_process = 0;
thread_local const std::vector<MappedFile>* t_mapped = nullptr;

// A file the process maps: the very file, through /proc/PID/map_files
// (open_mapped_file), else opened as the process sees its path: inside its
// root (a container's), the path's links resolved there too (openat2's
// RESOLVE_IN_ROOT, 5.6+); never a device or a FIFO. file_name: that path
// through /proc/PID/root, where libdwfl looks for its debug file.
int find_elf_in_root(Dwfl_Module*, void**, const char* name, Dwarf_Addr, char** file_name, Elf** elf)
{
    if (!name || name[0] != '/' || t_process <= 0)
        return -1;
    const std::string root = fmt::format("/proc/{}/root", t_process);
    int fd = -1;
    if (t_mapped)
        for (const MappedFile& f : *t_mapped)
            if (f.path == name) {
                fd = open_mapped_file(t_process, f);
                break;
            }
    if (fd < 0)
        fd = open_in_process(t_process, name);
    struct stat st {};
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
    }
    if (fd < 0)
        return -1;
    *file_name = strdup((root + name).c_str());
    *elf = nullptr;  // libdwfl makes it from fd
    return fd;
}

char* g_debuginfo_path = nullptr;  // libdwfl's default: .debug, /usr/lib/debug, build-id
const Dwfl_Callbacks kProcessCallbacks = {find_elf_in_root, dwfl_standard_find_debuginfo, nullptr,
                                          &g_debuginfo_path};

// Sets t_process and t_mapped for a call into libdwfl, which may open files.
class InProcess {
public:
    InProcess(pid_t pid, const std::vector<MappedFile>& mapped) : was_(t_process), was_mapped_(t_mapped)
    {
        t_process = pid;
        t_mapped = &mapped;
    }
    ~InProcess()
    {
        t_process = was_;
        t_mapped = was_mapped_;
    }
    InProcess(const InProcess&) = delete;
    InProcess& operator=(const InProcess&) = delete;

private:
    pid_t was_;
    const std::vector<MappedFile>* was_mapped_;
};

struct Walk {
    std::vector<uint64_t>* pcs;
    size_t max;
};

// A frame outside every mapped file, or the frame before once more, is
// where an unwind went wrong (a register the CFI does not restore): the
// walk ends before it.
int on_frame(Dwfl_Frame* frame, void* arg)
{
    auto* walk = static_cast<Walk*>(arg);
    Dwarf_Addr pc = 0;
    bool activation = false;
    if (!dwfl_frame_pc(frame, &pc, &activation) || pc == 0)
        return DWARF_CB_ABORT;
    Dwfl* dwfl = dwfl_thread_dwfl(dwfl_frame_thread(frame));
    if (!dwfl_addrmodule(dwfl, activation ? pc : pc - 1) || (!walk->pcs->empty() && walk->pcs->back() == pc))
        return DWARF_CB_ABORT;
    walk->pcs->push_back(pc);
    return walk->pcs->size() < walk->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

}  // namespace

std::string file_name_of(const std::string& path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string frame_in_file(const CodeAt& at)
{
    const std::string file = file_name_of(at.path);
    if (at.function && *at.function <= at.address)
        return fmt::format("{}+0x{:x}+0x{:x} [{}]", file, *at.function, at.address - *at.function, file);
    return fmt::format("{}+0x{:x} [{}]", file, at.address, file);
}

DwarfUnwinder::DwarfUnwinder(pid_t pid) : pid_(pid) { report(); }

DwarfUnwinder::~DwarfUnwinder()
{
    if (dwfl_)
        dwfl_end(dwfl_);
}

bool DwarfUnwinder::report()
{
    const InProcess in(pid_, mapped_);
    if (dwfl_)
        dwfl_end(dwfl_);
    attached_ = false;
    reported_at_ = std::chrono::steady_clock::now();
    function_starts_.clear();
    dwfl_ = dwfl_begin(&kProcessCallbacks);
    if (!dwfl_)
        return false;
    mapped_ = mapped_files(pid_);
    dwfl_report_begin(dwfl_);
    const int failed = dwfl_linux_proc_report(dwfl_, pid_);
    if (dwfl_report_end(dwfl_, nullptr, nullptr) != 0 || failed != 0)
        return false;
    attached_ = dwfl_attach_state(dwfl_, nullptr, pid_, &kThreadCallbacks, nullptr);
    return attached_;
}

// Code mapped since the mappings were read (dlopen): they are read again,
// at most once a second (an address in no file, a frame-pointer walk's
// garbage or JIT code, would read them for each).
Dwfl_Module* DwarfUnwinder::module_at(uint64_t pc)
{
    Dwfl_Module* m = attached_ ? dwfl_addrmodule(dwfl_, pc) : nullptr;
    const auto now = std::chrono::steady_clock::now();
    if (!m && now - reported_at_ >= std::chrono::seconds(1) && report())
        m = dwfl_addrmodule(dwfl_, pc);
    return m;
}

std::optional<CodeAt> DwarfUnwinder::code_at(uint64_t pc)
{
    const InProcess in(pid_, mapped_);
    Dwfl_Module* m = module_at(pc);
    if (!m)
        return std::nullopt;
    CodeAt at;
    const char* name = dwfl_module_info(m, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
    at.path = name ? name : "";
    // The file first: its build-id is known once it is read.
    Dwarf_Addr bias = 0;
    ::Elf* elf = dwfl_module_getelf(m, &bias);
    const unsigned char* bits = nullptr;
    GElf_Addr note_at = 0;
    const int n = dwfl_module_build_id(m, &bits, &note_at);
    for (int i = 0; i < n; ++i)
        at.build_id += fmt::format("{:02x}", bits[i]);
    if (!elf)
        return at;
    at.address = pc - bias;
    auto [starts, fresh] = function_starts_.try_emplace(m);
    if (fresh)
        starts->second = function_starts(elf);
    if (!starts->second.empty() && starts->second.front() <= at.address)
        at.function = function_of(starts->second, at.address);
    return at;
}

std::optional<std::string> DwarfUnwinder::symbol_at(uint64_t pc)
{
    const InProcess in(pid_, mapped_);
    Dwfl_Module* m = module_at(pc);
    if (!m)
        return std::nullopt;
    GElf_Off offset = 0;
    GElf_Sym sym;
    const char* name = dwfl_module_addrinfo(m, pc, &offset, &sym, nullptr, nullptr, nullptr);
    if (!name || !*name)
        return std::nullopt;
    const char* file = dwfl_module_info(m, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
    // Without its symbol version ("__libc_start_main@@GLIBC_2.34"), as perf
    // and BCC name it.
    std::string shown(name, std::strcspn(name, "@"));
    if (shown.rfind("_Z", 0) == 0) {
        int status = -1;
        if (char* plain = abi::__cxa_demangle(shown.c_str(), nullptr, nullptr, &status); plain && status == 0) {
            shown = plain;
            std::free(plain);
        }
    }
    return fmt::format("{}+0x{:x} [{}]", shown, offset, file_name_of(file ? file : ""));
}

std::vector<uint64_t> DwarfUnwinder::unwind(const DwarfRegs& regs, const StackCopy& stack, size_t max_frames)
{
    const InProcess in(pid_, mapped_);
    std::vector<uint64_t> pcs;
    const uint64_t ip = regs[kDwarfRegs - 1];
    if (!module_at(ip))
        return pcs;
    t_unwinding = Unwinding{&regs, stack};
    Walk walk{&pcs, max_frames};
    // -1 where the walk ended (no CFI further, or outside the copy): the
    // frames before stand.
    dwfl_getthread_frames(dwfl_, pid_, on_frame, &walk);
    t_unwinding = Unwinding{};
    return pcs;
}

}  // namespace kdelay
