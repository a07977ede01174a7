#include "sys/stderr_capture.h"

#include <cstdio>
#include <sys/mman.h>
#include <unistd.h>

namespace kdelay {

StderrCapture::StderrCapture(bool active)
{
    if (!active)
        return;
    fflush(stderr);
    capture_fd_ = memfd_create("kdelay-stderr", MFD_CLOEXEC);
    if (capture_fd_ < 0)
        return;
    saved_fd_ = dup(STDERR_FILENO);
    dup2(capture_fd_, STDERR_FILENO);
}

StderrCapture::~StderrCapture() { finish(); }

std::string StderrCapture::finish()
{
    if (saved_fd_ >= 0) {
        fflush(stderr);
        dup2(saved_fd_, STDERR_FILENO);
        close(saved_fd_);
        saved_fd_ = -1;
        char buf[4096];
        ssize_t n;
        lseek(capture_fd_, 0, SEEK_SET);
        while ((n = read(capture_fd_, buf, sizeof(buf))) > 0)
            text_.append(buf, static_cast<size_t>(n));
    }
    if (capture_fd_ >= 0) {
        close(capture_fd_);
        capture_fd_ = -1;
    }
    return text_;
}

}  // namespace kdelay
