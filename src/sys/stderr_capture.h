// Diverts file descriptor 2 while libbcc talks, so its noise stays out of
// normal output but compiler errors can still be reported.
#pragma once

#include <string>

namespace kdelay {

class StderrCapture {
public:
    // When active is false nothing is diverted and text() stays empty.
    explicit StderrCapture(bool active = true);
    ~StderrCapture();
    StderrCapture(const StderrCapture&) = delete;
    StderrCapture& operator=(const StderrCapture&) = delete;

    // Restores stderr (if not yet done) and returns what was written.
    std::string finish();

private:
    int saved_fd_ = -1;
    int capture_fd_ = -1;
    std::string text_;
};

}  // namespace kdelay
