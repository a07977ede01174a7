#include "annotate/block_input.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

#include "core/error.h"

namespace kdelay {

void BlockInput::fill(size_t want)
{
    if (end_ - pos_ >= want || eof_)
        return;
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    base_ += pos_;
    end_ -= pos_;
    pos_ = 0;
    while (end_ < want && !eof_) {
        const ssize_t n = ::read(fd_, buf_.data() + end_, kCapacity - end_);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw Error(Exit::ioerr, name_ + ": read error: " + strerror(errno));
        if (n == 0)
            eof_ = true;
        end_ += static_cast<size_t>(n);
    }
    buf_[end_] = 0;
}

}  // namespace kdelay
