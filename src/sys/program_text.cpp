#include "sys/program_text.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gelf.h>
#include <libelf.h>
#include <sstream>
#include <string_view>
#include <unistd.h>

namespace kdelay {
namespace {

// The poll family's names in the C library, with their aliases and the
// fortified variants a program built with _FORTIFY_SOURCE calls.
constexpr std::array<std::string_view, 16> kPollFamily = {
    "poll",       "__poll",      "__poll_chk",  "ppoll",        "__ppoll",       "__ppoll_chk",
    "select",     "__select",    "pselect",     "__pselect",    "epoll_wait",    "__epoll_wait",
    "epoll_pwait", "epoll_pwait2", "__libc_poll", "__libc_select"};

bool in_poll_family(const char* name)
{
    if (!name)
        return false;
    std::string_view n(name);
    n = n.substr(0, n.find('@'));  // a version: poll@GLIBC_2.2.5
    return std::find(kPollFamily.begin(), kPollFamily.end(), n) != kPollFamily.end();
}

struct Elf {
    int fd = -1;
    ::Elf* elf = nullptr;
    explicit Elf(const std::string& path)
    {
        elf_version(EV_CURRENT);
        fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd >= 0)
            elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
    }
    ~Elf()
    {
        if (elf)
            elf_end(elf);
        if (fd >= 0)
            close(fd);
    }
    Elf(const Elf&) = delete;
    Elf& operator=(const Elf&) = delete;
};

// A symbol's name, from the symbol table at section index symtab.
const char* symbol_name(::Elf* elf, size_t symtab, size_t index)
{
    Elf_Scn* scn = elf_getscn(elf, symtab);
    GElf_Shdr sh;
    if (!scn || !gelf_getshdr(scn, &sh))
        return nullptr;
    Elf_Data* data = elf_getdata(scn, nullptr);
    GElf_Sym sym;
    if (!data || !gelf_getsym(data, static_cast<int>(index), &sym))
        return nullptr;
    return elf_strptr(elf, sh.sh_link, sym.st_name);
}

// p_vaddr - p_offset of the executable segment: a file offset plus this is
// an address of the file.
bool code_segment_delta(::Elf* elf, int64_t& delta)
{
    size_t n = 0;
    if (elf_getphdrnum(elf, &n) != 0)
        return false;
    for (size_t i = 0; i < n; ++i) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, static_cast<int>(i), &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
            delta = static_cast<int64_t>(ph.p_vaddr) - static_cast<int64_t>(ph.p_offset);
            return true;
        }
    }
    return false;
}

}  // namespace

std::vector<CodeMapping> code_mappings(std::istream& maps, const std::string& program)
{
    std::vector<CodeMapping> code;
    std::string line;
    while (std::getline(maps, line)) {
        // lo-hi perms offset dev inode [path]
        std::istringstream in(line);
        std::string span, perms, offset, dev, inode, path;
        if (!(in >> span >> perms >> offset >> dev >> inode) || perms.size() < 3 || perms[2] != 'x')
            continue;
        in >> std::ws;
        std::getline(in, path);
        const size_t dash = span.find('-');
        if (path != program || dash == std::string::npos)
            continue;
        try {
            size_t used[3] = {};
            const std::string lo = span.substr(0, dash), hi = span.substr(dash + 1);
            CodeMapping m{std::stoull(lo, &used[0], 16), std::stoull(hi, &used[1], 16),
                          std::stoull(offset, &used[2], 16)};
            if (used[0] == lo.size() && used[1] == hi.size() && used[2] == offset.size() && m.lo < m.hi)
                code.push_back(m);
        } catch (const std::exception&) {
        }
    }
    return code;
}

namespace {

std::vector<uint64_t> poll_call_targets(::Elf* elf)
{
    std::vector<uint64_t> targets;
    if (elf_kind(elf) != ELF_K_ELF)
        return targets;
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf, scn)) != nullptr) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        Elf_Data* data = elf_getdata(scn, nullptr);
        if (!data || sh.sh_entsize == 0)
            continue;
        const size_t count = sh.sh_size / sh.sh_entsize;
        if (sh.sh_type == SHT_RELA) {
            // A GOT slot that the dynamic linker fills with a poll-family
            // function: the PLT's and -fno-plt's calls go through it.
            for (size_t i = 0; i < count; ++i) {
                GElf_Rela r;
                if (gelf_getrela(data, static_cast<int>(i), &r) &&
                    in_poll_family(symbol_name(elf, sh.sh_link, GELF_R_SYM(r.r_info))))
                    targets.push_back(r.r_offset);
            }
        } else if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
            // A static program's own copy of the function.
            for (size_t i = 0; i < count; ++i) {
                GElf_Sym s;
                if (gelf_getsym(data, static_cast<int>(i), &s) && s.st_shndx != SHN_UNDEF &&
                    GELF_ST_TYPE(s.st_info) == STT_FUNC && s.st_value &&
                    in_poll_family(elf_strptr(elf, sh.sh_link, s.st_name)))
                    targets.push_back(s.st_value);
            }
        }
    }
    std::sort(targets.begin(), targets.end());
    targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
    return targets;
}

}  // namespace

std::vector<uint64_t> poll_call_targets(const std::string& path)
{
    Elf f(path);
    return f.elf ? poll_call_targets(f.elf) : std::vector<uint64_t>{};
}

ProgramText program_text(pid_t pid)
{
    ProgramText text;
    const std::string dir = "/proc/" + std::to_string(pid);
    std::error_code ec;
    const std::string program = std::filesystem::read_symlink(dir + "/exe", ec).string();
    std::ifstream maps(dir + "/maps");
    if (ec || !maps)
        return text;
    text.code = code_mappings(maps, program);
    if (text.code.empty())
        return text;
    // Through the process's own link: its mount namespace, or a program
    // replaced on disk since it started.
    Elf f(dir + "/exe");
    int64_t delta = 0;
    if (!f.elf || !code_segment_delta(f.elf, delta))
        return text;
    const CodeMapping& first = text.code.front();
    const uint64_t bias = first.lo - first.offset - static_cast<uint64_t>(delta);
    for (const uint64_t t : poll_call_targets(f.elf))
        text.poll_targets.push_back(bias + t);
    return text;
}

}  // namespace kdelay
