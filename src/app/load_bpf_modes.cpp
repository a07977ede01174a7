// kdelay's side of the modes that need eBPF: it loads kdelay-bpf.so, which
// runs them in this process with the options parsed here.
#include <cerrno>
#include <climits>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <unistd.h>

#include "app/modes.h"
#include "core/error.h"

namespace kdelay {
namespace {

// Where this binary is, from the kernel: never a guess such as ".", which
// would load whatever kdelay-bpf.so the working directory holds, as root.
std::string own_directory()
{
    char path[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    if (n <= 0 || path[0] != '/')
        throw Error(Exit::osfile, std::string("cannot tell where kdelay is to load kdelay-bpf.so beside it: "
                                              "/proc/self/exe: ") +
                                      (n < 0 ? strerror(errno) : "not a path") + " (is /proc mounted?)");
    const std::string self(path, static_cast<size_t>(n));
    return self.substr(0, self.rfind('/'));
}

}  // namespace

int run_bpf_mode(const Options& options)
{
    // Beside kdelay in a build tree; in lib/kdelay once installed.
    const std::string dir = own_directory();
    const std::string candidates[] = {dir + "/kdelay-bpf.so", dir + "/" KDELAY_BPF_FROM_BINDIR};
    for (const std::string& path : candidates) {
        if (access(path.c_str(), R_OK) != 0)
            continue;
        // Never unloaded: its objects live until exit.
        void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!module)
            throw Error(Exit::osfile, std::string("cannot load ") + path + ": " + dlerror() + " (reinstall kdelay)");
        const auto run = reinterpret_cast<decltype(&kdelay_bpf_run)>(dlsym(module, kKdelayBpfEntry));
        if (!run)
            throw Error(Exit::osfile, path + " is not kdelay's: it has no " + kKdelayBpfEntry + " (reinstall kdelay)");
        return run(&options);
    }
    throw Error(Exit::osfile, "this mode needs kdelay-bpf.so, which is in neither " + candidates[0] + " nor " +
                                  candidates[1] + " (reinstall kdelay)");
}

}  // namespace kdelay
