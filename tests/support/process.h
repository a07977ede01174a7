// Runs a program for a test, with its stdout and stderr captured.
#pragma once

#include <chrono>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kdtest {

class Process {
public:
    // Starts argv. With as_user set, drops to that uid/gid before exec.
    explicit Process(const std::vector<std::string>& argv, uid_t as_user = 0);
    ~Process();  // kills and reaps if still running
    Process(const Process&) = delete;
    Process& operator=(const Process&) = delete;

    pid_t pid() const { return pid_; }
    void signal(int sig);

    // Reads until stdout holds a line containing needle. False on timeout or exit.
    bool wait_for_output(const std::string& needle, std::chrono::milliseconds timeout);
    // Waits for exit and returns the exit status (128+signal if killed); -1 on timeout.
    int wait(std::chrono::milliseconds timeout);

    const std::string& out() const { return out_; }
    const std::string& err() const { return err_; }

private:
    bool pump(int timeout_ms);  // false when both pipes are closed
    pid_t pid_ = -1;
    int out_fd_ = -1, err_fd_ = -1;
    std::string out_, err_;
    bool reaped_ = false;
    int status_ = -1;
};

// Runs argv to completion (with a timeout) and returns the process.
struct Result {
    int status;
    std::string out;
    std::string err;
};
Result run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
           uid_t as_user = 0);

}  // namespace kdtest
