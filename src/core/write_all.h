// Writing a whole buffer to a file descriptor, through short writes and
// interruptions.
#pragma once

#include <cerrno>
#include <string>
#include <unistd.h>

namespace kdelay {

// False with errno set when a write fails.
inline bool write_all(int fd, const std::string& bytes)
{
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return false;
        }
        done += static_cast<size_t>(n);
    }
    return true;
}

}  // namespace kdelay
