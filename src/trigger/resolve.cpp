#include "trigger/resolve.h"

#include <algorithm>
#include <bcc/bcc_proc.h>
#include <bcc/bcc_syms.h>
#include <bcc/bcc_usdt.h>
#include <elf.h>
#include <fstream>
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

// bcc_usdt_foreach's callback takes no context.
thread_local std::vector<UsdtProbe>* g_probes = nullptr;

void collect_probe(struct bcc_usdt* p)
{
    g_probes->push_back(UsdtProbe{p->bin_path, p->provider, p->name});
}

// The sites of provider:name in a process (or the executable exe when pid
// is 0), as BCC finds them: each location, with the probe's semaphore.
std::vector<UsdtSite> usdt_sites(pid_t pid, const std::string& exe, const std::string& provider,
                                 const std::string& name)
{
    std::vector<UsdtSite> sites;
    void* ctx = pid ? bcc_usdt_new_frompid(pid, nullptr) : bcc_usdt_new_frompath(exe.c_str());
    if (!ctx)
        return sites;
    static thread_local struct Wanted {
        const std::string* provider;
        const std::string* name;
        uint64_t semaphore_offset;
        int locations;
    } wanted;
    wanted = {&provider, &name, 0, 0};
    bcc_usdt_foreach(ctx, [](struct bcc_usdt* p) {
        if (*wanted.provider == p->provider && *wanted.name == p->name) {
            wanted.semaphore_offset = p->semaphore ? p->semaphore_offset : 0;
            wanted.locations = p->num_locations;
        }
    });
    for (int i = 0; i < wanted.locations; ++i) {
        struct bcc_usdt_location loc {};
        if (bcc_usdt_get_location(ctx, provider.c_str(), name.c_str(), i, &loc) == 0 && loc.bin_path)
            sites.push_back(UsdtSite{loc.bin_path, loc.address, wanted.semaphore_offset});
    }
    bcc_usdt_close(ctx);
    return sites;
}

// Whether a library file's name is the one `object` names: itself ("libc.so.6"),
// or with "lib" and a version ("c": libc.so.6, libc-2.31.so; "libc": libc.so.6).
bool names_library(const std::string& file, const std::string& object)
{
    const std::string base = file.substr(file.rfind('/') + 1);
    const auto starts = [&](const std::string& prefix) { return base.rfind(prefix, 0) == 0; };
    return base == object || starts("lib" + object + ".so") || starts("lib" + object + "-") ||
           starts(object + ".so");
}

// A library as the process has it loaded (from its maps), named as the
// process sees it (open_in_process opens it in the process's own root, a
// container's). Without a process (a command not started yet), as the
// loader would find it.
std::string resolve_library(const std::string& object, pid_t pid)
{
    if (object[0] == '/')
        return object;
    if (pid) {
        std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
        const std::string text((std::istreambuf_iterator<char>(maps)), std::istreambuf_iterator<char>());
        for (const std::string& file : parse_mapped_files(text))
            if (names_library(file, object))
                return file;
        throw Error(Exit::config, "no library '" + object + "' loaded in process " + std::to_string(pid));
    }
    char* path = bcc_procutils_which_so(object.c_str(), 0);
    if (!path)
        throw Error(Exit::config, "no library '" + object + "' found");
    std::string result(path);
    free(path);
    return result;
}

}  // namespace

std::vector<UsdtProbe> list_usdt_probes(pid_t pid, const std::string& exe)
{
    std::vector<UsdtProbe> probes;
    void* ctx = pid ? bcc_usdt_new_frompid(pid, nullptr) : bcc_usdt_new_frompath(exe.c_str());
    if (!ctx)
        return probes;
    g_probes = &probes;
    bcc_usdt_foreach(ctx, collect_probe);
    g_probes = nullptr;
    bcc_usdt_close(ctx);
    std::sort(probes.begin(), probes.end(), [](const UsdtProbe& a, const UsdtProbe& b) {
        return std::tie(a.provider, a.name, a.binary) < std::tie(b.provider, b.name, b.binary);
    });
    probes.erase(std::unique(probes.begin(), probes.end(),
                             [](const UsdtProbe& a, const UsdtProbe& b) {
                                 return a.provider == b.provider && a.name == b.name &&
                                        a.binary == b.binary;
                             }),
                 probes.end());
    return probes;
}

std::string usdt_binary(const std::vector<UsdtProbe>& probes, const std::string& provider,
                        const std::string& name, const std::string& where)
{
    for (const auto& p : probes)
        if (p.provider == provider && p.name == name)
            return p.binary;
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
        r.binary = usdt_binary(list_usdt_probes(pid, exe), t.provider, t.probe,
                               pid ? "process " + std::to_string(pid) : exe);
        r.sites = usdt_sites(pid, exe, t.provider, t.probe);
        if (r.sites.empty())
            throw Error(Exit::config, "USDT probe " + t.provider + ":" + t.probe + " in " + r.binary +
                                          " has no location to attach to");
        return r;
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
        r.shown = t.object.empty() ? exe : resolve_library(t.object, pid);
        const std::string name = "uprobe object " + r.shown;
        constexpr int kFlags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
        const int fd = pid <= 0           ? open(r.shown.c_str(), kFlags)
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
