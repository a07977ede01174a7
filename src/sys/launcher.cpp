#include "sys/launcher.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "core/error.h"

namespace kdelay {

std::string find_in_path(const std::string& name)
{
    if (name.find('/') != std::string::npos)
        return access(name.c_str(), X_OK) == 0 ? name : "";
    const char* path = getenv("PATH");
    std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
        std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
        if (access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return "";
}

Launcher::Launcher(const std::vector<std::string>& argv)
{
    const std::string path = find_in_path(argv.at(0));
    if (path.empty())
        throw Error(Exit::unavailable, "cannot run '" + argv[0] + "': command not found");

    int go[2], status[2];
    if (pipe2(go, O_CLOEXEC) != 0 || pipe2(status, O_CLOEXEC) != 0)
        throw Error(Exit::oserr, std::string("pipe: ") + strerror(errno));

    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);

    pid_ = fork();
    if (pid_ < 0)
        throw Error(Exit::oserr, std::string("fork: ") + strerror(errno));
    if (pid_ == 0) {
        close(go[1]);
        close(status[0]);
        for (char c = 0; c != 'g';)
            if (read(go[0], &c, 1) != 1)
                _exit(127);  // kdelay gave up before tracing started
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        execv(path.c_str(), args.data());
        int err = errno;
        (void)!write(status[1], &err, sizeof(err));
        _exit(127);
    }
    close(go[0]);
    close(status[1]);
    go_fd_ = go[1];
    status_fd_ = status[0];
}

void Launcher::wake() { (void)!write(go_fd_, "w", 1); }

void Launcher::release()
{
    released_ = true;
    (void)!write(go_fd_, "g", 1);
    close(go_fd_);
    go_fd_ = -1;
    int err = 0;
    // EOF means exec succeeded (the pipe closed on exec).
    if (read(status_fd_, &err, sizeof(err)) == sizeof(err))
        throw Error(Exit::unavailable, std::string("cannot run command: ") + strerror(err));
}

Launcher::~Launcher()
{
    if (go_fd_ >= 0)
        close(go_fd_);
    if (status_fd_ >= 0)
        close(status_fd_);
    if (pid_ <= 0)
        return;
    int st;
    if (!released_) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &st, 0);
        return;
    }
    if (waitpid(pid_, &st, WNOHANG) == pid_)
        return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {
        if (waitpid(pid_, &st, WNOHANG) == pid_)
            return;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, &st, 0);
}

}  // namespace kdelay
