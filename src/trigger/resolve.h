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

// A USDT probe of a file of the target. binary: that file as BCC reads it,
// /proc/self/fd/N of file, which kdelay opened as the process maps it;
// shown: its path as the process names it.
struct UsdtProbe {
    std::string binary;
    std::string provider;
    std::string name;
    std::string shown;
    std::shared_ptr<const UniqueFd> file;
};

// The USDT probes of a running process (its executable and mapped
// libraries, each the very file it maps: /proc/PID/map_files), or of an
// executable file when pid is 0.
std::vector<UsdtProbe> list_usdt_probes(pid_t pid, const std::string& exe);

// The probe provider:name among probes (from list_usdt_probes), the first
// file's. Throws Error(Exit::config) listing the probes there are, naming
// where.
const UsdtProbe& usdt_probe(const std::vector<UsdtProbe>& probes, const std::string& provider,
                            const std::string& name, const std::string& where);

// Where a USDT probe sits: an uprobe at address in binary, and the probe's
// semaphore (its file offset; 0 without one), which the kernel raises in
// each process the uprobe is attached in.
struct UsdtSite {
    std::string binary;  // /proc/self/fd/N of file
    uint64_t address = 0;
    uint64_t semaphore_offset = 0;
    std::shared_ptr<const UniqueFd> file;
};

struct ResolvedTrigger {
    Trigger trigger;
    // usdt and uprobe: the object to attach to, the file kdelay opened
    // (file; a uprobe's checked too), handed on as /proc/self/fd/N, so that
    // nothing swapped in for its path later is what BCC reads.
    std::string binary;
    std::vector<UsdtSite> sites;   // usdt: every place the probe is
    std::shared_ptr<const UniqueFd> file;
    std::string shown;  // the object as the process names it
};

// exe is the target's executable (a command not yet started has pid 0).
// Throws Error: Exit::config when the probe, symbol or tracepoint does not
// exist, Exit::unavailable when this kernel cannot do it (kprobes).
ResolvedTrigger resolve_trigger(const Trigger& trigger, pid_t pid, const std::string& exe);

}  // namespace kdelay
