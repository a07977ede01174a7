#include "trigger/resolve.h"

#include <algorithm>
#include <bcc/bcc_proc.h>
#include <bcc/bcc_syms.h>
#include <bcc/bcc_usdt.h>
#include <elf.h>
#include <string_view>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <tuple>
#include <unistd.h>

#include "core/error.h"
#include "sys/elf_object.h"
#include "sys/process.h"
#include "sys/tracefs.h"

namespace kdelay {
namespace {

// A file of the target opened by kdelay, which BCC reads as
// /proc/self/fd/N: never by its path again.
struct OpenedFile {
    std::string shown;  // as the process names it
    std::shared_ptr<const UniqueFd> fd;
    std::string path() const { return "/proc/self/fd/" + std::to_string(fd->get()); }
};

// The files that may hold a process's USDT probes: each it maps, the very
// file it maps (open_mapped_file); without a process (a command not
// started yet), its executable.
std::vector<OpenedFile> usdt_files(pid_t pid, const std::string& exe)
{
    std::vector<OpenedFile> files;
    if (pid <= 0) {
        const int fd = open(exe.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd >= 0)
            files.push_back({exe, std::make_shared<const UniqueFd>(fd)});
        return files;
    }
    for (const MappedFile& f : mapped_files(pid))
        if (const int fd = open_mapped_file(pid, f); fd >= 0)
            files.push_back({f.path, std::make_shared<const UniqueFd>(fd)});
    return files;
}

// bcc_usdt_foreach's callback takes no context.
thread_local std::vector<UsdtProbe>* g_probes = nullptr;
thread_local const OpenedFile* g_file = nullptr;

void collect_probe(struct bcc_usdt* p)
{
    g_probes->push_back(UsdtProbe{g_file->path(), p->provider, p->name, g_file->shown, g_file->fd});
}

// The sites of provider:name in the file of probe, as BCC finds them: each
// location, with the probe's semaphore.
std::vector<UsdtSite> usdt_sites(const UsdtProbe& probe)
{
    std::vector<UsdtSite> sites;
    void* ctx = bcc_usdt_new_frompath(probe.binary.c_str());
    if (!ctx)
        return sites;
    static thread_local struct Wanted {
        const std::string* provider;
        const std::string* name;
        uint64_t semaphore_offset;
        int locations;
    } wanted;
    wanted = {&probe.provider, &probe.name, 0, 0};
    bcc_usdt_foreach(ctx, [](struct bcc_usdt* p) {
        if (*wanted.provider == p->provider && *wanted.name == p->name) {
            wanted.semaphore_offset = p->semaphore ? p->semaphore_offset : 0;
            wanted.locations = p->num_locations;
        }
    });
    for (int i = 0; i < wanted.locations; ++i) {
        struct bcc_usdt_location loc {};
        if (bcc_usdt_get_location(ctx, probe.provider.c_str(), probe.name.c_str(), i, &loc) == 0)
            sites.push_back(UsdtSite{probe.binary, loc.address, wanted.semaphore_offset, probe.file});
    }
    bcc_usdt_close(ctx);
    return sites;
}

// Whether a library file's name is the one `object` names: itself ("libc.so.6"),
// or with "lib" and a version ("c": libc.so.6, libc-2.31.so; "libc": libc.so.6).
bool names_library(std::string file, const std::string& object)
{
    constexpr std::string_view kDeleted = " (deleted)";  // the maps' mark of a file replaced since
    if (file.size() > kDeleted.size() && file.compare(file.size() - kDeleted.size(), kDeleted.size(), kDeleted) == 0)
        file.resize(file.size() - kDeleted.size());
    const std::string base = file.substr(file.rfind('/') + 1);
    const auto starts = [&](const std::string& prefix) { return base.rfind(prefix, 0) == 0; };
    return base == object || starts("lib" + object + ".so") || starts("lib" + object + "-") ||
           starts(object + ".so");
}

// A library as the process has it loaded (from its maps), named as the
// process sees it, and opened as it maps it (open_mapped_file). Without a
// process (a command not started yet), as the loader would find it, and
// not opened.
std::pair<std::string, int> resolve_library(const std::string& object, pid_t pid)
{
    if (pid) {
        for (const MappedFile& f : mapped_files(pid))
            if (names_library(f.path, object)) {
                const int fd = open_mapped_file(pid, f);
                if (fd < 0)
                    throw Error(Exit::config, "cannot read library " + f.path + " of process " +
                                                  std::to_string(pid) + ": " + strerror(errno));
                return {f.path, fd};
            }
        throw Error(Exit::config, "no library '" + object + "' loaded in process " + std::to_string(pid));
    }
    char* path = bcc_procutils_which_so(object.c_str(), 0);
    if (!path)
        throw Error(Exit::config, "no library '" + object + "' found");
    std::string result(path);
    free(path);
    return {result, -1};
}

}  // namespace

std::vector<UsdtProbe> list_usdt_probes(pid_t pid, const std::string& exe)
{
    std::vector<UsdtProbe> probes;
    for (const OpenedFile& file : usdt_files(pid, exe)) {
        void* ctx = bcc_usdt_new_frompath(file.path().c_str());
        if (!ctx)
            continue;
        g_probes = &probes;
        g_file = &file;
        bcc_usdt_foreach(ctx, collect_probe);
        g_probes = nullptr;
        g_file = nullptr;
        bcc_usdt_close(ctx);
    }
    // One file may be mapped under two names (a link, a bind mount): by
    // the name shown, each once.
    std::stable_sort(probes.begin(), probes.end(), [](const UsdtProbe& a, const UsdtProbe& b) {
        return std::tie(a.provider, a.name, a.shown) < std::tie(b.provider, b.name, b.shown);
    });
    probes.erase(std::unique(probes.begin(), probes.end(),
                             [](const UsdtProbe& a, const UsdtProbe& b) {
                                 return a.provider == b.provider && a.name == b.name && a.shown == b.shown;
                             }),
                 probes.end());
    return probes;
}

const UsdtProbe& usdt_probe(const std::vector<UsdtProbe>& probes, const std::string& provider,
                            const std::string& name, const std::string& where)
{
    for (const auto& p : probes)
        if (p.provider == provider && p.name == name)
            return p;
    std::string have;
    for (const auto& p : probes)
        have += (have.empty() ? "" : ", ") + p.provider + ":" + p.name;
    throw Error(Exit::config, "no USDT probe " + provider + ":" + name + " in " + where +
                                  (have.empty() ? "; it has no USDT probes" : "; it has: " + have));
}

ResolvedTrigger resolve_trigger(const Trigger& t, pid_t pid, const std::string& exe)
{
    ResolvedTrigger r{t, "", {}, nullptr, ""};
    switch (t.kind) {
    case Trigger::Kind::usdt:
    {
        // Every file of the process that holds the probe, each the file it
        // maps, handed to BCC as /proc/self/fd/N.
        const std::vector<UsdtProbe> probes = list_usdt_probes(pid, exe);
        const UsdtProbe& first = usdt_probe(probes, t.provider, t.probe, pid ? "process " + std::to_string(pid) : exe);
        r.binary = first.binary;
        r.file = first.file;
        r.shown = first.shown;
        for (const UsdtProbe& p : probes)
            if (p.provider == t.provider && p.name == t.probe)
                for (UsdtSite& site : usdt_sites(p))
                    r.sites.push_back(std::move(site));
        if (r.sites.empty())
            throw Error(Exit::config, "USDT probe " + t.provider + ":" + t.probe + " in " + r.shown +
                                          " has no location to attach to");
        return r;
    }
    case Trigger::Kind::tracepoint:
        if (!tracepoint_exists(t.system, t.event))
            throw Error(Exit::config, "no tracepoint " + t.system + ":" + t.event + " in " +
                                          tracefs_dir() + "/events");
        return r;
    case Trigger::Kind::kprobe:
    case Trigger::Kind::kretprobe:
        if (!kprobes_available())
            throw Error(Exit::unavailable, "cannot use trigger '" + t.describe() +
                                               "': this kernel has no kprobes (CONFIG_KPROBES is not set)");
        return r;
    case Trigger::Kind::uprobe:
    case Trigger::Kind::uretprobe: {
        // The file opened once, as the process sees it, and checked: BCC is
        // handed that file, never its path again. The target's executable
        // is the one it runs (/proc/PID/exe).
        // A library by its name is the one the process maps, opened as it
        // maps it; a path, the file there in the process's root.
        int mapped = -1;
        if (t.object.empty())
            r.shown = exe;
        else if (t.object[0] == '/')
            r.shown = t.object;
        else
            std::tie(r.shown, mapped) = resolve_library(t.object, pid);
        const std::string name = "uprobe object " + r.shown;
        constexpr int kFlags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
        const int fd = mapped >= 0        ? mapped
                       : pid <= 0         ? open(r.shown.c_str(), kFlags)
                       : t.object.empty() ? open(("/proc/" + std::to_string(pid) + "/exe").c_str(), kFlags)
                                          : open_in_process(pid, r.shown);
        if (fd < 0)
            throw Error(Exit::config, errno == ENOENT ? name + " does not exist"
                                                      : "cannot read " + name + ": " + strerror(errno));
        r.file = std::make_shared<const UniqueFd>(fd);
        check_elf_file(fd, name);
        r.binary = "/proc/self/fd/" + std::to_string(fd);
        struct bcc_symbol sym {};
        struct bcc_symbol_option opt {};
        opt.use_debug_file = 1;
        opt.check_debug_file_crc = 1;
        opt.use_symbol_type = (1 << STT_FUNC) | (1 << STT_GNU_IFUNC);
        if (bcc_resolve_symname(r.binary.c_str(), t.function.c_str(), 0, 0, &opt, &sym) != 0)
            throw Error(Exit::config, "no function '" + t.function + "' in " + r.shown);
        bcc_procutils_free(sym.module);
        return r;
    }
    }
    return r;
}

}  // namespace kdelay
