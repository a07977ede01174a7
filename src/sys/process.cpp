#include "sys/process.h"

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/error.h"

namespace kdelay {

namespace fs = std::filesystem;

bool process_exists(pid_t pid)
{
    return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

void require_root()
{
    if (geteuid() != 0)
        throw Error(Exit::noperm, "must run as root to load and attach eBPF programs");
}

void require_process(pid_t pid)
{
    if (!process_exists(pid))
        throw Error(Exit::unavailable, "no such process: " + std::to_string(pid));
}

std::vector<pid_t> find_processes_by_name(const std::string& name)
{
    std::vector<pid_t> found;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
        const std::string dir = entry.path().filename();
        if (dir.find_first_not_of("0123456789") != std::string::npos)
            continue;
        std::ifstream comm(entry.path() / "comm");
        std::string line;
        if (std::getline(comm, line) && line == name)
            found.push_back(static_cast<pid_t>(std::stol(dir)));
    }
    return found;
}

size_t thread_count(pid_t pid)
{
    std::error_code ec;
    size_t n = 0;
    for (fs::directory_iterator it(fs::path("/proc") / std::to_string(pid) / "task", ec), end;
         !ec && it != end; it.increment(ec))
        ++n;
    return n;
}

}  // namespace kdelay
