#include "sys/event_wait.h"

#include <poll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace kdelay {

EventWait::EventWait()
{
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigprocmask(SIG_BLOCK, &mask, &old_mask_);
    signal_fd_ = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

EventWait::~EventWait()
{
    for (int fd : pid_fds_)
        close(fd);
    if (signal_fd_ >= 0)
        close(signal_fd_);
    sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
}

void EventWait::watch_process(pid_t pid)
{
    const int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    if (fd >= 0) {
        pid_fds_.push_back(fd);
        exited_ = false;
    } else if (pid_fds_.empty()) {
        exited_ = true;  // already gone, and no other process watched
    }
}

EventWait::Wake EventWait::wait_until(Clock::time_point deadline)
{
    for (;;) {
        if (interrupted_)
            return Wake::interrupted;
        if (exited_)
            return Wake::target_exited;
        // Poll at least once, even for a deadline already passed, so a
        // caller checking "anything new?" with wait_until(now) sees it.
        // Rounded up, so that the last fraction of a millisecond is slept,
        // not spun by a caller that waits again until its deadline.
        auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
        std::vector<pollfd> fds{{signal_fd_, POLLIN, 0}};
        for (int fd : pid_fds_)
            fds.push_back({fd, POLLIN, 0});
        int timeout = left.count() <= 0 ? 0 : left.count() > 1000000 ? 1000000 : static_cast<int>(left.count());
        if (poll(fds.data(), fds.size(), timeout) <= 0) {
            if (left.count() <= 0)
                return Wake::timeout;
            continue;
        }
        if (fds[0].revents & POLLIN) {
            signalfd_siginfo info;
            while (read(signal_fd_, &info, sizeof(info)) == sizeof(info))
                interrupted_ = true;
        }
        for (size_t i = fds.size() - 1; i >= 1; --i)
            if (fds[i].revents & (POLLIN | POLLHUP)) {
                close(pid_fds_[i - 1]);
                pid_fds_.erase(pid_fds_.begin() + static_cast<long>(i - 1));
                exited_ = pid_fds_.empty();
            }
    }
}

}  // namespace kdelay
