#include "loader/ring_buffer.h"

#include <bcc/libbpf.h>
#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace kdelay {

RingBufferReader::RingBufferReader(int map_fd, Handler handler)
{
    rings_.push_back(std::make_unique<Ring>(Ring{this, std::move(handler)}));
    rb_ = static_cast<struct ring_buffer*>(bpf_new_ringbuf(map_fd, &RingBufferReader::on_sample, rings_.back().get()));
    if (!rb_)
        throw Error(Exit::oserr, std::string("cannot open the BPF ring buffer: ") + strerror(errno));
}

RingBufferReader::~RingBufferReader() { bpf_free_ringbuf(rb_); }

void RingBufferReader::add(int map_fd, Handler handler)
{
    rings_.push_back(std::make_unique<Ring>(Ring{this, std::move(handler)}));
    if (bpf_add_ringbuf(rb_, map_fd, &RingBufferReader::on_sample, rings_.back().get()) < 0)
        throw Error(Exit::oserr, std::string("cannot open the BPF ring buffer: ") + strerror(errno));
}

int RingBufferReader::on_sample(void* ctx, void* data, size_t size)
{
    auto* ring = static_cast<Ring*>(ctx);
    ring->handler(data, size);
    RingBufferReader* self = ring->reader;
    // Checking the clock per record would cost more than the record.
    if (++self->since_check_ >= 1024) {
        self->since_check_ = 0;
        if (Clock::now() >= self->deadline_)
            return -1;  // stop consuming; the rest stays for the next call
    }
    return 0;
}

void RingBufferReader::poll_until(Clock::time_point deadline)
{
    deadline_ = deadline;
    // Rounded up: a timeout cut to 0 ms would spin in epoll_wait for the
    // last fraction of a millisecond before each deadline (1% of a CPU at
    // a deadline every 100 ms).
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    bpf_poll_ringbuf(rb_, left.count() > 0 ? static_cast<int>(left.count()) : 0);
}

void RingBufferReader::drain()
{
    deadline_ = Clock::time_point::max();
    bpf_consume_ringbuf(rb_);
}

}  // namespace kdelay
