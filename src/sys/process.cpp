#include "sys/process.h"

#include <algorithm>
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

bool process_alive(pid_t pid)
{
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (pid <= 0 || !std::getline(stat, line))
        return false;
    const auto paren = line.rfind(") ");  // comm may hold ") " itself
    return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] != 'Z' &&
           line[paren + 2] != 'X';
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

bool in_kernels_pid_namespace()
{
    // The initial PID namespace's id is fixed (PROC_PID_INIT_INO).
    std::error_code ec;
    const auto ns = fs::read_symlink("/proc/self/ns/pid", ec);
    return ec || ns.string() == "pid:[4026531836]";
}

std::vector<pid_t> find_processes_with_name_containing(const std::string& name)
{
    std::vector<pid_t> found;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
        const std::string dir = entry.path().filename();
        if (dir.find_first_not_of("0123456789") != std::string::npos)
            continue;
        std::ifstream comm(entry.path() / "comm");
        std::string line;
        if (std::getline(comm, line) && line.find(name) != std::string::npos)
            found.push_back(static_cast<pid_t>(std::stol(dir)));
    }
    return found;
}

std::vector<ThreadState> thread_states(pid_t pid)
{
    std::vector<ThreadState> threads;
    std::error_code ec;
    const fs::path task = fs::path("/proc") / std::to_string(pid) / "task";
    for (fs::directory_iterator it(task, ec), end; !ec && it != end; it.increment(ec)) {
        ThreadState t;
        try {
            t.tid = static_cast<pid_t>(std::stol(it->path().filename().string()));
        } catch (const std::exception&) {
            continue;
        }
        std::ifstream stat(it->path() / "stat");
        std::string line;
        if (!std::getline(stat, line))
            continue;  // exited meanwhile
        // "TID (COMM) S ...": COMM may hold spaces and parentheses.
        const auto open = line.find('('), close = line.rfind(')');
        if (open == std::string::npos || close == std::string::npos || close + 2 >= line.size())
            continue;
        t.comm = line.substr(open + 1, close - open - 1);
        t.state = line[close + 2];
        std::ifstream sys(it->path() / "syscall");
        std::string first;
        if (sys >> first && first != "running")  // running: not known
            try {
                t.syscall = std::stol(first);
            } catch (const std::exception&) {
            }
        threads.push_back(std::move(t));
    }
    std::sort(threads.begin(), threads.end(), [](const ThreadState& a, const ThreadState& b) { return a.tid < b.tid; });
    return threads;
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
