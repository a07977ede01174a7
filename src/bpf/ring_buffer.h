// Reads a BPF_RINGBUF_OUTPUT map through libbcc's C ring buffer functions
// (BCC 0.26's C++ class has no ring buffer API).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>

struct ring_buffer;

namespace kdelay {

class RingBufferReader {
public:
    using Clock = std::chrono::steady_clock;
    using Handler = std::function<void(const void* data, size_t size)>;

    RingBufferReader(int map_fd, Handler handler);
    ~RingBufferReader();
    RingBufferReader(const RingBufferReader&) = delete;
    RingBufferReader& operator=(const RingBufferReader&) = delete;

    // Waits for records until deadline and hands each to the handler. Under
    // a constant stream one libbpf poll never returns on its own, so the
    // handler side checks the deadline and breaks out.
    void poll_until(Clock::time_point deadline);
    // Takes whatever is in the buffer now, without waiting.
    void drain();

private:
    static int on_sample(void* ctx, void* data, size_t size);
    struct ring_buffer* rb_ = nullptr;
    Handler handler_;
    Clock::time_point deadline_;
    unsigned since_check_ = 0;
};

}  // namespace kdelay
