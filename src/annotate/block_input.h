// The trace input, read in large blocks, and rapidjson's stream over it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kdelay {

// The input, read in large blocks. A NUL always follows the data, so the fast
// entry scanner stops at the end without a bounds check per byte.
class BlockInput {
public:
    BlockInput(int fd, std::string name) : fd_(fd), name_(std::move(name)), buf_(kCapacity + 1) { buf_[0] = 0; }

    const char* pos() const { return buf_.data() + pos_; }
    const char* end() const { return buf_.data() + end_; }
    void advance_to(const char* p) { pos_ = static_cast<size_t>(p - buf_.data()); }
    uint64_t offset(const char* p) const { return base_ + static_cast<uint64_t>(p - buf_.data()); }
    uint64_t tell() const { return base_ + pos_; }
    bool eof() const { return eof_; }

    // Makes at least `want` bytes available after pos() unless the input ends
    // first. Throws Error(Exit::ioerr) on a read error.
    void fill(size_t want);
    char peek()
    {
        if (pos_ == end_)
            fill(1);
        return buf_[pos_];  // NUL at the end
    }
    char take()
    {
        const char c = peek();
        if (pos_ < end_)
            ++pos_;
        return c;
    }

    static constexpr size_t kCapacity = 4 << 20;

private:
    int fd_;
    std::string name_;
    std::vector<char> buf_;
    size_t pos_ = 0, end_ = 0;
    uint64_t base_ = 0;  // input offset of buf_[0]
    bool eof_ = false;
};

// rapidjson's input stream concept over BlockInput, optionally starting with
// a few bytes of `prefix` (which resumes the top-level object after the
// entries; offsets leave it out). It ends after `limit` bytes: rapidjson
// holds a whole string in memory, so a hostile one must not grow forever.
class BlockStream {
public:
    using Ch = char;
    BlockStream(BlockInput& in, uint64_t limit, std::string_view prefix = {})
        : in_(in), prefix_(prefix), end_(in.tell() + limit)
    {
    }
    Ch Peek() const { return at_ < prefix_.size() ? prefix_[at_] : over_limit() ? '\0' : in_.peek(); }
    Ch Take() { return at_ < prefix_.size() ? prefix_[at_++] : over_limit() ? '\0' : in_.take(); }
    size_t Tell() const { return in_.tell(); }
    bool over_limit() const { return in_.tell() >= end_; }
    Ch* PutBegin() { return nullptr; }
    void Put(Ch) {}
    void Flush() {}
    size_t PutEnd(Ch*) { return 0; }

private:
    BlockInput& in_;
    std::string_view prefix_;
    uint64_t end_;
    size_t at_ = 0;
};

}  // namespace kdelay
