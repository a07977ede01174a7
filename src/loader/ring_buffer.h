// Reads BPF_RINGBUF_OUTPUT maps through libbcc's C ring buffer functions
// (BCC 0.26's C++ class has no ring buffer API). One reader may hold
// several rings: a poll wakes on any of them.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

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

    // One more ring, read by the same polls; drain() takes the rings in the
    // order they were added.
    void add(int map_fd, Handler handler);

    // Waits for records until deadline and hands each to its ring's
    // handler. Under a constant stream one libbpf poll never returns on its
    // own, so the handler side checks the deadline and breaks out. A poll
    // takes only the rings that were ready as it woke, in no set order.
    void poll_until(Clock::time_point deadline);
    // Takes whatever is in the rings now, without waiting, ring by ring.
    void drain();

private:
    struct Ring {
        RingBufferReader* reader;
        Handler handler;
    };
    static int on_sample(void* ctx, void* data, size_t size);
    struct ring_buffer* rb_ = nullptr;
    std::vector<std::unique_ptr<Ring>> rings_;  // libbcc holds their addresses
    Clock::time_point deadline_;
    unsigned since_check_ = 0;
};

}  // namespace kdelay
