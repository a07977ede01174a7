#include "sys/process.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
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

namespace {

// A task's name from /proc: the whole file less its last newline, as a
// name may hold line breaks of its own.
std::string comm_of(const fs::path& task_dir)
{
    std::ifstream in(task_dir / "comm");
    std::string name((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!name.empty() && name.back() == '\n')
        name.pop_back();
    return name;
}

// The process a task id belongs to (its thread group), from
// /proc/ID/status; 0 when that cannot be read.
pid_t thread_group_of(pid_t id)
{
    std::ifstream status("/proc/" + std::to_string(id) + "/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("Tgid:", 0) == 0)
            return static_cast<pid_t>(std::strtol(line.c_str() + 5, nullptr, 10));
    return 0;
}

}  // namespace

void require_process(pid_t pid)
{
    if (!process_exists(pid))
        throw Error(Exit::unavailable, "no such process: " + std::to_string(pid));
    // kill() takes a thread's id too; a thread would match nothing.
    const pid_t tgid = thread_group_of(pid);
    if (tgid > 0 && tgid != pid) {
        const std::string name = comm_of("/proc/" + std::to_string(tgid));
        throw Error(Exit::usage, std::to_string(pid) + " is a thread of process " + std::to_string(tgid) +
                                     (name.empty() ? "" : " (" + name + ")") + ": give -p " +
                                     std::to_string(tgid));
    }
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
        if (comm_of(entry.path()).find(name) != std::string::npos)
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
