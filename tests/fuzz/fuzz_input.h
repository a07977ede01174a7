// What the fuzz targets share: the input as text, as argument words, and
// as a FILE, and the rule that a parser may only refuse input with
// kdelay's Error (any other exception is a finding).
#pragma once

#include <clocale>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cwchar>
#include <cwctype>
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

// The locale the printable checks read UTF-8 in.
inline void use_utf8()
{
    static const bool utf8 = std::setlocale(LC_CTYPE, "C.UTF-8") != nullptr;
    if (!utf8)
        std::abort();
}

// Aborts unless text is valid UTF-8 with no control character but its line
// breaks: what a terminal shows as it is. use_utf8() first.
inline void check_printable(const std::string& text)
{
    std::mbstate_t state{};
    for (size_t i = 0; i < text.size();) {
        wchar_t wc;
        const size_t n = std::mbrtowc(&wc, text.data() + i, text.size() - i, &state);
        if (n == static_cast<size_t>(-1) || n == static_cast<size_t>(-2))
            std::abort();  // not UTF-8
        if (n == 0 || (wc != L'\n' && std::iswcntrl(static_cast<wint_t>(wc))))
            std::abort();  // a control character
        i += n;
    }
}

}  // namespace kdfuzz
