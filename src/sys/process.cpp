#include "sys/process.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <limits>
#include <linux/openat2.h>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <sys/syscall.h>
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

}  // namespace

std::string process_name(pid_t pid) { return pid > 0 ? comm_of("/proc/" + std::to_string(pid)) : std::string(); }

std::string read_file(const fs::path& path)
{
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

namespace {

// The process a task id belongs to (its thread group); 0 when not known.
pid_t thread_group_of(pid_t id) { return parse_status_tgid(read_file("/proc/" + std::to_string(id) + "/status")); }

}  // namespace

pid_t parse_status_tgid(const std::string& text)
{
    for (size_t at = 0; at < text.size();) {
        const size_t end = std::min(text.find('\n', at), text.size());
        if (text.compare(at, 5, "Tgid:") == 0) {
            const long v = std::strtol(text.substr(at + 5, end - at - 5).c_str(), nullptr, 10);
            return v > 0 && v <= std::numeric_limits<pid_t>::max() ? static_cast<pid_t>(v) : 0;
        }
        at = end + 1;
    }
    return 0;
}

bool parse_task_stat(const std::string& line, ThreadState& into)
{
    const auto open = line.find('('), close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open || close + 2 >= line.size())
        return false;
    into.comm = line.substr(open + 1, close - open - 1);
    into.state = line[close + 2];
    return true;
}

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

namespace {

bool same_file(const std::string& a, const std::string& b)
{
    struct stat x {}, y {};
    return stat(a.c_str(), &x) == 0 && stat(b.c_str(), &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

// Whether pid resolves paths as kdelay does: the same mount namespace and
// the same root.
bool shares_our_view(pid_t pid)
{
    const std::string proc = "/proc/" + std::to_string(pid);
    return same_file(proc + "/ns/mnt", "/proc/self/ns/mnt") && same_file(proc + "/root", "/");
}

}  // namespace

std::vector<MappedFile> parse_mapped_files(const std::string& maps)
{
    std::vector<MappedFile> files;
    std::set<std::string> seen;
    for (size_t at = 0; at < maps.size();) {
        const size_t end = std::min(maps.find('\n', at), maps.size());
        // lo-hi perms offset dev inode [path]: the path is what follows the
        // fifth field's blanks.
        size_t p = at;
        for (int field = 0; field < 5 && p < end; ++field) {
            p = maps.find_first_not_of(' ', p);
            p = p == std::string::npos || p >= end ? end : std::min(maps.find(' ', p), end);
        }
        p = maps.find_first_not_of(' ', p);
        if (p != std::string::npos && p < end && maps[p] == '/') {
            MappedFile f{maps.substr(p, end - p)};
            const char* const line = maps.data() + at;
            char* dash = nullptr;
            f.start = std::strtoull(line, &dash, 16);
            if (dash && *dash == '-')
                f.end = std::strtoull(dash + 1, nullptr, 16);
            if (seen.insert(f.path).second)
                files.push_back(std::move(f));
        }
        at = end + 1;
    }
    return files;
}

std::vector<MappedFile> mapped_files(pid_t pid)
{
    return parse_mapped_files(read_file("/proc/" + std::to_string(pid) + "/maps"));
}

int open_mapped_file(pid_t pid, const MappedFile& f)
{
    if (pid <= 0 || f.end <= f.start) {
        errno = EINVAL;
        return -1;
    }
    const std::string link = fmt::format("/proc/{}/map_files/{:x}-{:x}", pid, f.start, f.end);
    const int fd = open(link.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return -1;
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

std::string process_executable(pid_t pid)
{
    const std::string link = "/proc/" + std::to_string(pid) + "/exe";
    std::error_code ec;
    const std::string path = fs::read_symlink(link, ec).string();
    if (ec || path.empty() || !shares_our_view(pid) || !same_file(path, link))
        return link;
    return path;
}

bool in_kernels_pid_namespace()
{
    // The initial PID namespace's id is fixed (PROC_PID_INIT_INO).
    std::error_code ec;
    const auto ns = fs::read_symlink("/proc/self/ns/pid", ec);
    return ec || ns.string() == "pid:[4026531836]";
}

int open_in_process(pid_t pid, const std::string& path)
{
    constexpr int kFlags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    if (path.empty() || path[0] != '/') {
        errno = EINVAL;
        return -1;
    }
    if (pid <= 0)
        return open(path.c_str(), kFlags);
    const int root = open(("/proc/" + std::to_string(pid) + "/root").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return -1;
    open_how how{};
    how.flags = kFlags;
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    const int fd = static_cast<int>(syscall(SYS_openat2, root, path.c_str(), &how, sizeof(how)));
    const int err = errno;
    close(root);
    errno = err;
    return fd;
}

bool runs_as_root(pid_t pid)
{
    const std::string status = read_file("/proc/" + std::to_string(pid) + "/status");
    for (size_t at = 0; at < status.size();) {
        const size_t end = std::min(status.find('\n', at), status.size());
        if (status.compare(at, 4, "Uid:") == 0) {
            std::istringstream uids(status.substr(at + 4, end - at - 4));
            long real = -1, effective = -1;
            return uids >> real >> effective && real == 0 && effective == 0;
        }
        at = end + 1;
    }
    return false;
}

NamedProcesses processes_named(const std::string& name)
{
    NamedProcesses found;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
        const std::string dir = entry.path().filename();
        if (dir.find_first_not_of("0123456789") != std::string::npos || comm_of(entry.path()) != name)
            continue;
        const auto pid = static_cast<pid_t>(std::stol(dir));
        if (runs_as_root(pid))
            found.roots.push_back(pid);
        else
            ++found.others;
    }
    std::sort(found.roots.begin(), found.roots.end());
    return found;
}

std::optional<pid_t> pid_from_pidfile(const std::string& path, const std::string& name)
{
    const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    struct stat st {};
    char text[32] = {};
    const bool roots = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 && !(st.st_mode & 022);
    const ssize_t n = roots ? read(fd, text, sizeof(text) - 1) : -1;
    close(fd);
    if (n <= 0)
        return std::nullopt;
    char* end = nullptr;
    const long pid = std::strtol(text, &end, 10);
    if (pid <= 0 || pid > std::numeric_limits<pid_t>::max() || (*end != '\n' && *end != '\0'))
        return std::nullopt;
    if (process_name(static_cast<pid_t>(pid)) != name || !runs_as_root(static_cast<pid_t>(pid)))
        return std::nullopt;
    return static_cast<pid_t>(pid);
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
        if (!parse_task_stat(read_file(it->path() / "stat"), t))
            continue;  // exited meanwhile
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
