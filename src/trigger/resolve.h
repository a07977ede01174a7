// Checks a parsed trigger against the target before anything is compiled:
// the USDT probe, symbol or tracepoint it names must exist.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

#include "core/unique_fd.h"
#include "trigger/trigger.h"

namespace kdelay {

struct UsdtProbe {
    std::string binary;
    std::string provider;
    std::string name;
};

// The USDT probes of a running process (its executable and mapped
// libraries), or of an executable file when pid is 0.
std::vector<UsdtProbe> list_usdt_probes(pid_t pid, const std::string& exe);

// The object holding provider:name among probes (from list_usdt_probes).
// Throws Error(Exit::config) listing the probes there are, naming where.
std::string usdt_binary(const std::vector<UsdtProbe>& probes, const std::string& provider,
                        const std::string& name, const std::string& where);

// Where a USDT probe sits: an uprobe at address in binary, and the probe's
// semaphore (its file offset; 0 without one), which the kernel raises in
// each process the uprobe is attached in.
struct UsdtSite {
    std::string binary;
    uint64_t address = 0;
    uint64_t semaphore_offset = 0;
};

struct ResolvedTrigger {
    Trigger trigger;
    // usdt and uprobe: the object to attach to. A uprobe's is the file
    // kdelay opened and checked (file), handed on as /proc/self/fd/N, so
    // that nothing swapped in for its path later is what BCC reads.
    std::string binary;
    std::vector<UsdtSite> sites;   // usdt: every place the probe is
    std::shared_ptr<const UniqueFd> file;
    std::string shown;  // uprobe: the object as the process names it
};

// exe is the target's executable (a command not yet started has pid 0).
// Throws Error: Exit::config when the probe, symbol or tracepoint does not
// exist, Exit::unavailable when this kernel cannot do it (kprobes).
ResolvedTrigger resolve_trigger(const Trigger& trigger, pid_t pid, const std::string& exe);

}  // namespace kdelay
