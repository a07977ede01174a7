#include "stall/poll_sites.h"

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

#include "sys/elf_sections.h"

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

// The poll-family functions' GOT slots (a relocation's place) and, in a
// static program, the functions themselves.
struct PollTargets {
    std::vector<uint64_t> slots;
    std::vector<uint64_t> functions;
};

bool contains(const std::vector<uint64_t>& sorted, uint64_t v)
{
    return std::binary_search(sorted.begin(), sorted.end(), v);
}

PollTargets poll_targets(::Elf* elf)
{
    PollTargets t;
    for_each_section(elf, [&](const GElf_Shdr& sh, std::string_view, Elf_Data* data) {
        if (!data || sh.sh_entsize == 0)
            return;
        const size_t count = sh.sh_size / sh.sh_entsize;
        if (sh.sh_type == SHT_RELA) {
            for (size_t i = 0; i < count; ++i) {
                GElf_Rela r;
                if (gelf_getrela(data, static_cast<int>(i), &r) &&
                    in_poll_family(symbol_name(elf, sh.sh_link, GELF_R_SYM(r.r_info))))
                    t.slots.push_back(r.r_offset);
            }
        } else if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
            for (size_t i = 0; i < count; ++i) {
                GElf_Sym s;
                if (gelf_getsym(data, static_cast<int>(i), &s) && s.st_shndx != SHN_UNDEF &&
                    GELF_ST_TYPE(s.st_info) == STT_FUNC && s.st_value &&
                    in_poll_family(elf_strptr(elf, sh.sh_link, s.st_name)))
                    t.functions.push_back(s.st_value);
            }
        }
    });
    sort_unique(t.slots);
    sort_unique(t.functions);
    return t;
}

// An executable section's bytes and address.
struct Code {
    std::string name;
    uint64_t addr = 0;
    uint64_t entsize = 0;
    const unsigned char* bytes = nullptr;
    size_t size = 0;
};

std::vector<Code> code_sections(::Elf* elf)
{
    std::vector<Code> code;
    for_each_section(elf, [&](const GElf_Shdr& sh, std::string_view name, Elf_Data* data) {
        if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR) && data && data->d_buf)
            code.push_back(Code{std::string(name), sh.sh_addr, sh.sh_entsize,
                                static_cast<const unsigned char*>(data->d_buf), data->d_size});
    });
    return code;
}

std::vector<PollSite> poll_call_sites(::Elf* elf)
{
    std::vector<PollSite> sites;
    if (elf_kind(elf) != ELF_K_ELF)
        return sites;
    const PollTargets targets = poll_targets(elf);
    const std::vector<Code> code = code_sections(elf);
    // What a direct call of a poll-family function calls: a PLT stub whose
    // `jmp *slot(%rip)` (after an endbr64 or a bnd prefix) reads one of the
    // slots, or the function itself.
    std::vector<uint64_t> callees = targets.functions;
    for (const Code& c : code) {
        if (c.name.rfind(".plt", 0) != 0 || c.size < 6)
            continue;
        const uint64_t entry = c.entsize ? c.entsize : 16;
        for (size_t k = 0; k + 6 <= c.size; ++k)
            if (c.bytes[k] == 0xff && c.bytes[k + 1] == 0x25 &&
                contains(targets.slots, c.addr + k + 6 + rel32(c.bytes + k + 2)))
                callees.push_back(c.addr + k / entry * entry);
    }
    sort_unique(callees);
    const std::vector<uint64_t> starts = function_starts(elf);
    for (const Code& c : code) {
        if (c.name.rfind(".plt", 0) == 0)
            continue;
        for (size_t i = 0; i + 6 <= c.size; ++i) {
            uint64_t ret = 0;
            if (c.bytes[i] == 0xe8 && contains(callees, c.addr + i + 5 + rel32(c.bytes + i + 1)))
                ret = c.addr + i + 5;
            else if (c.bytes[i] == 0xff && c.bytes[i + 1] == 0x15 &&
                     contains(targets.slots, c.addr + i + 6 + rel32(c.bytes + i + 2)))
                ret = c.addr + i + 6;
            if (ret)
                sites.push_back(PollSite{ret, function_of(starts, ret - 1)});
        }
    }
    return sites;
}

}  // namespace

std::vector<PollSite> poll_call_sites(const std::string& path)
{
    Elf f(path);
    return f.elf ? poll_call_sites(f.elf) : std::vector<PollSite>{};
}

std::vector<PollSite> program_poll_sites(pid_t pid)
{
    const std::string dir = "/proc/" + std::to_string(pid);
    std::error_code ec;
    const std::string program = std::filesystem::read_symlink(dir + "/exe", ec).string();
    std::ifstream maps(dir + "/maps");
    if (ec || !maps)
        return {};
    const std::vector<CodeMapping> code = code_mappings(maps, program);
    Elf f(dir + "/exe");
    int64_t delta = 0;
    if (code.empty() || !f.elf || !code_segment_delta(f.elf, delta))
        return {};
    const uint64_t bias = code.front().lo - code.front().offset - static_cast<uint64_t>(delta);
    std::vector<PollSite> sites = poll_call_sites(f.elf);
    for (PollSite& s : sites) {
        s.ret += bias;
        s.function += bias;
    }
    return sites;
}

}  // namespace kdelay
