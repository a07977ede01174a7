#include "process.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace kdtest {

Process::Process(const std::vector<std::string>& argv, uid_t as_user)
{
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
        throw std::runtime_error("pipe");
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        if (as_user != 0 && (setgid(as_user) != 0 || setuid(as_user) != 0))
            _exit(126);
        execv(args[0], args.data());
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    out_fd_ = out[0];
    err_fd_ = err[0];
}

Process::~Process()
{
    if (!reaped_ && pid_ > 0) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
    }
    if (out_fd_ >= 0)
        close(out_fd_);
    if (err_fd_ >= 0)
        close(err_fd_);
}

void Process::signal(int sig) { kill(pid_, sig); }

bool Process::pump(int timeout_ms)
{
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    if (out_fd_ < 0 && err_fd_ < 0)
        return false;
    if (poll(fds, 2, timeout_ms) <= 0)
        return true;
    int* fdp[2] = {&out_fd_, &err_fd_};
    std::string* bufs[2] = {&out_, &err_};
    for (int i = 0; i < 2; ++i) {
        if (*fdp[i] < 0 || !(fds[i].revents & (POLLIN | POLLHUP)))
            continue;
        char buf[65536];
        ssize_t n = read(*fdp[i], buf, sizeof(buf));
        if (n > 0) {
            bufs[i]->append(buf, static_cast<size_t>(n));
        } else {
            close(*fdp[i]);
            *fdp[i] = -1;
        }
    }
    return true;
}

bool Process::wait_for_output(const std::string& needle, std::chrono::milliseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (out_.find(needle) == std::string::npos) {
        if (std::chrono::steady_clock::now() > deadline || !pump(50))
            return false;
    }
    return true;
}

int Process::wait(std::chrono::milliseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (pump(50)) {
        if (std::chrono::steady_clock::now() > deadline)
            return -1;
    }
    while (!reaped_) {
        int st;
        if (waitpid(pid_, &st, WNOHANG) == pid_) {
            reaped_ = true;
            status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        } else if (std::chrono::steady_clock::now() > deadline) {
            return -1;
        } else {
            usleep(10000);
        }
    }
    return status_;
}

Result run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout, uid_t as_user)
{
    Process p(argv, as_user);
    int status = p.wait(timeout);
    return Result{status, p.out(), p.err()};
}

}  // namespace kdtest
