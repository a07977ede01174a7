// Starts a command held at the door until tracing is ready, so kdelay sees
// it from its first instruction.
#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

namespace kdelay {

class Launcher {
public:
    // Forks a child that waits. Throws Error(Exit::unavailable) when the
    // command cannot be found or run.
    explicit Launcher(const std::vector<std::string>& argv);
    // A child never released is killed; a running one gets SIGTERM, then
    // SIGKILL after a second. Either way it is reaped.
    ~Launcher();
    Launcher(const Launcher&) = delete;
    Launcher& operator=(const Launcher&) = delete;

    pid_t pid() const { return pid_; }

    // Lets the held child run once and wait again: for a probe that learns
    // a task's ids when it is switched out (bpf/pidns.bpf.c).
    void wake();

    // Lets the child exec the command. Throws Error(Exit::unavailable) if
    // exec failed.
    void release();

private:
    pid_t pid_ = -1;
    int go_fd_ = -1;      // write end: 'g' lets the child exec, 'w' wakes it
    int status_fd_ = -1;  // read end: the child's errno if exec failed
    bool released_ = false;
};

// The path execvp would run for name, or "" if there is none.
std::string find_in_path(const std::string& name);

}  // namespace kdelay
