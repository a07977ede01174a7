// Reads kdelay's text report back into numbers, for assertions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kdtest {

using Row = std::vector<std::string>;  // whitespace-separated cells

struct ThreadBlock {
    uint32_t tid = 0;
    std::string name;
    std::map<std::string, std::vector<Row>> sections;  // "[SYSCALL STATISTICS]" -> rows
};

// The thread blocks of every sample dump in text, later samples last.
std::vector<std::map<uint32_t, ThreadBlock>> parse_samples(const std::string& text);

// "1,234" -> 1234.
uint64_t number(const std::string& cell);

// The row of section whose first cell is key, or nullptr.
const Row* find_row(const ThreadBlock& t, const std::string& section, const std::string& key);

// The first thread of a sample with this name, or nullptr.
const ThreadBlock* thread_named(const std::map<uint32_t, ThreadBlock>& sample, const std::string& name);

}  // namespace kdtest
