#include "sys/kernel_env.h"

#include <filesystem>
#include <sys/utsname.h>

#include "core/error.h"

namespace kdelay {

std::string kernel_build_dir()
{
    struct utsname u {};
    uname(&u);
    return std::string("/lib/modules/") + u.release + "/build";
}

void require_kernel_headers()
{
    namespace fs = std::filesystem;
    const fs::path build = kernel_build_dir();
    const fs::path source = build.parent_path() / "source";
    std::error_code ec;
    if (fs::is_directory(build / "include", ec) && fs::is_directory(source / "include", ec))
        return;
    throw Error(Exit::osfile,
                "no kernel header tree at " + build.string() + " and " + source.string() +
                    "; BCC needs one to compile. Fix: run scripts/setup.sh, or install "
                    "linux-headers-amd64 and link build to /usr/src/linux-headers-*-amd64 and "
                    "source to /usr/src/linux-headers-*-common");
}

}  // namespace kdelay
