// What the fuzz targets share: the input as text, as argument words, and
// as a FILE, and the rule that a parser may only refuse input with
// kdelay's Error (any other exception is a finding).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace kdfuzz {

inline std::string text(const uint8_t* data, size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

// The input cut at NUL bytes: one word an argument, at most `most`.
inline std::vector<std::string> words(const uint8_t* data, size_t size, size_t most = 64)
{
    std::vector<std::string> out(1);
    for (size_t i = 0; i < size && out.size() <= most; ++i) {
        if (data[i] == '\0')
            out.emplace_back();
        else
            out.back() += static_cast<char>(data[i]);
    }
    return out;
}

// The input as a read-only stream, as the readers take files.
class MemoryFile {
public:
    MemoryFile(const uint8_t* data, size_t size)
        : bytes_(reinterpret_cast<const char*>(data), size),
          file_(fmemopen(bytes_.empty() ? nullptr : bytes_.data(), bytes_.size(), "r"))
    {
    }
    ~MemoryFile()
    {
        if (file_)
            fclose(file_);
    }
    MemoryFile(const MemoryFile&) = delete;
    MemoryFile& operator=(const MemoryFile&) = delete;
    std::FILE* get() const { return file_; }

private:
    std::string bytes_;
    std::FILE* file_;
};

}  // namespace kdfuzz
