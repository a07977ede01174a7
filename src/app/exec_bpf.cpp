// The front end's modes that need eBPF: handed over to kdelay-bpf, which
// parses the same command line again (a millisecond) and runs the mode in
// this process, under this pid.
#include <cerrno>
#include <climits>
#include <cstring>
#include <string>
#include <unistd.h>

#include "app/modes.h"
#include "core/error.h"

namespace kdelay {
namespace {

// Where this binary is, from the kernel: never a guess such as ".", which
// would run whatever kdelay-bpf the working directory holds, as root.
std::string own_directory()
{
    char path[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    if (n <= 0 || path[0] != '/')
        throw Error(Exit::osfile, std::string("cannot tell where kdelay is to run kdelay-bpf beside it: "
                                              "/proc/self/exe: ") +
                                      (n < 0 ? strerror(errno) : "not a path") + " (is /proc mounted?)");
    const std::string self(path, static_cast<size_t>(n));
    return self.substr(0, self.rfind('/'));
}

}  // namespace

int run_bpf_mode(const Options&, const Invocation& invocation)
{
    // Beside kdelay in a build tree; in libexec once installed.
    const std::string dir = own_directory();
    const std::string candidates[] = {dir + "/kdelay-bpf", dir + "/" KDELAY_BPF_FROM_BINDIR};
    for (const std::string& path : candidates)
        if (access(path.c_str(), X_OK) == 0) {
            execv(path.c_str(), const_cast<char* const*>(invocation.argv));
            throw Error(Exit::oserr, "cannot run " + path + ": " + strerror(errno));
        }
    throw Error(Exit::osfile, "this mode needs kdelay-bpf, which is in neither " + candidates[0] + " nor " +
                                  candidates[1] + " (reinstall kdelay)");
}

}  // namespace kdelay
