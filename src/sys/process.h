// Facts about processes, read from /proc.
#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

namespace kdelay {

bool process_exists(pid_t pid);

// Throw Error with the sysexits code: Exit::noperm unless root,
// Exit::unavailable when pid does not exist.
void require_root();
void require_process(pid_t pid);

// PIDs whose comm (/proc/PID/comm) equals name.
std::vector<pid_t> find_processes_by_name(const std::string& name);

// Number of threads of pid, 0 when it is gone.
size_t thread_count(pid_t pid);

}  // namespace kdelay
