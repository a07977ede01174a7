#include "report_parser.h"

#include <regex>
#include <sstream>

namespace kdtest {

uint64_t number(const std::string& cell)
{
    std::string digits;
    for (char c : cell)
        if (c != ',')
            digits += c;
    return std::stoull(digits);
}

std::vector<std::map<uint32_t, ThreadBlock>> parse_samples(const std::string& text)
{
    static const std::regex thread_line(R"(^ *(\d+) (.*?) +(\[[A-Z /-]+\])$)");
    static const std::regex section_line(R"(^ {28}(\[[A-Z /-]+\])$)");
    std::vector<std::map<uint32_t, ThreadBlock>> samples;
    std::istringstream in(text);
    std::string line, section;
    ThreadBlock* current = nullptr;
    bool skip_header = false;
    while (std::getline(in, line)) {
        std::smatch m;
        if (line.rfind("TID ", 0) == 0) {
            samples.emplace_back();
            current = nullptr;
        } else if (samples.empty() || line.empty() || line[0] == '#' || line[0] == '-') {
            if (!line.empty() && line[0] == '#')
                current = nullptr;
        } else if (std::regex_match(line, m, thread_line)) {
            const auto tid = static_cast<uint32_t>(std::stoul(m[1]));
            current = &samples.back()[tid];
            current->tid = tid;
            current->name = m[2];
            section = m[3];
            skip_header = true;
        } else if (current && std::regex_match(line, m, section_line)) {
            section = m[1];
            skip_header = true;
        } else if (current && skip_header) {
            skip_header = false;  // the column titles
        } else if (current) {
            std::istringstream cells(line);
            Row row;
            std::string cell;
            while (cells >> cell)
                row.push_back(cell);
            current->sections[section].push_back(row);
        }
    }
    return samples;
}

const Row* find_row(const ThreadBlock& t, const std::string& section, const std::string& key)
{
    auto s = t.sections.find(section);
    if (s == t.sections.end())
        return nullptr;
    for (const auto& row : s->second)
        if (!row.empty() && row[0] == key)
            return &row;
    return nullptr;
}

const ThreadBlock* thread_named(const std::map<uint32_t, ThreadBlock>& sample, const std::string& name)
{
    for (const auto& [tid, t] : sample)
        if (t.name == name)
            return &t;
    return nullptr;
}

}  // namespace kdtest
