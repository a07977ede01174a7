// Facts about processes, read from /proc.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kdelay {

bool process_exists(pid_t pid);
// Exists and is neither a zombie nor dead: its /proc/PID/root, maps and
// namespaces can still be read.
bool process_alive(pid_t pid);

// Throw Error with the sysexits code: Exit::noperm unless root,
// Exit::unavailable when pid does not exist, Exit::usage when it is a
// thread and not a process (naming its process).
void require_root();
void require_process(pid_t pid);
// A file mapped in a /proc/PID/maps text: its path as the process sees it
// (a name may hold spaces; " (deleted)" stays: removed, or another file
// renamed over it, since it was mapped) and the range of its first mapping.
struct MappedFile {
    std::string path;
    uint64_t start = 0;
    uint64_t end = 0;
};
// Each file once, in order.
std::vector<MappedFile> parse_mapped_files(const std::string& maps);
// The files process pid maps now, from its /proc/PID/maps (none when it is
// gone).
std::vector<MappedFile> mapped_files(pid_t pid);
// The file process pid maps at f's range, opened through
// /proc/PID/map_files (root only): the very file it maps, its path never
// resolved again, so that neither a link nor a file renamed over the path
// since (a package upgraded under a running daemon) leads elsewhere.
// Read-only, a regular file only; -1 with errno when it cannot be.
int open_mapped_file(pid_t pid, const MappedFile& f);


// The file process pid runs, in a form kdelay can open: its path where the
// two views are the same, else /proc/PID/exe (a container, a chroot, a
// file deleted or replaced since it started).
std::string process_executable(pid_t pid);

// Whether kdelay runs in the kernel's initial PID namespace, where the PIDs
// it reads from /proc are those eBPF compares with.
bool in_kernels_pid_namespace();

// The name (comm) of process pid now; empty when it is gone.
std::string process_name(pid_t pid);

// A small file of /proc or /sys, whole; empty when it cannot be read.
std::string read_file(const std::filesystem::path& path);

// The processes whose name (comm) is name exactly: those root runs (real
// and effective uid 0, from /proc/PID/status, which a process cannot
// change as it can its /proc/PID's owner by leaving the dumpable state),
// and how many other users run.
struct NamedProcesses {
    std::vector<pid_t> roots;
    size_t others = 0;
};
NamedProcesses processes_named(const std::string& name);

// The process a daemon's pidfile names, when the file is root's (a regular
// file, not a link, that only root may write) and the process it names is
// root's and is named name; else none.
std::optional<pid_t> pid_from_pidfile(const std::string& path, const std::string& name);

// Whether process pid runs as root (real and effective uid 0).
bool runs_as_root(pid_t pid);

// The file at the absolute path as process pid sees it, opened read-only
// and never blocking: inside its root (a container's), each link of the
// path resolved there too (openat2's RESOLVE_IN_ROOT, 5.6+; never a magic
// link), so that a link the process's owner planted cannot reach kdelay's
// own files. pid 0: kdelay's own view. -1 with errno when it cannot be.
int open_in_process(pid_t pid, const std::string& path);

// Number of threads of pid, 0 when it is gone.
size_t thread_count(pid_t pid);

// A thread as /proc/PID/task/TID shows it now.
struct ThreadState {
    pid_t tid = 0;
    std::string comm;
    char state = '?';      // stat's R, S, D, T, t, ...
    long syscall = -2;     // the syscall it sleeps in; -1 outside any; -2 unknown (or running)
};

// A task's name and state from its /proc stat line ("TID (COMM) S ..."; the
// name may hold spaces, parentheses and line breaks); false when the line
// has no such shape.
bool parse_task_stat(const std::string& line, ThreadState& into);

// The Tgid of a /proc status file's text; 0 when it has none.
pid_t parse_status_tgid(const std::string& text);

// The threads of pid, by tid; empty when it is gone.
std::vector<ThreadState> thread_states(pid_t pid);

}  // namespace kdelay
