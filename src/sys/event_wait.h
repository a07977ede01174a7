// Waits for the first of: a deadline, Ctrl-C/SIGTERM, or the target exiting
// (the last of its processes).
#pragma once

#include <chrono>
#include <csignal>
#include <sys/types.h>
#include <vector>

namespace kdelay {

class EventWait {
public:
    enum class Wake { timeout, interrupted, target_exited };
    using Clock = std::chrono::steady_clock;

    // Blocks SIGINT and SIGTERM for the process and receives them on a signalfd.
    EventWait();
    ~EventWait();
    EventWait(const EventWait&) = delete;
    EventWait& operator=(const EventWait&) = delete;

    // Also wake when pid exits; when several are watched, when the last of
    // them exits.
    void watch_process(pid_t pid);

    // Both conditions are sticky: once seen, every later wait returns at once.
    Wake wait_until(Clock::time_point deadline);
    bool interrupted() const { return interrupted_; }
    bool target_exited() const { return exited_; }

private:
    int signal_fd_ = -1;
    std::vector<int> pid_fds_;  // of the processes still alive
    sigset_t old_mask_;
    bool interrupted_ = false;
    bool exited_ = false;
};

}  // namespace kdelay
