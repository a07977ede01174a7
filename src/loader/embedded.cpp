#include "loader/embedded.h"

#include "core/error.h"

namespace kdelay {

const std::string& embedded_file(const std::string& name)
{
    const auto& files = embedded_files();
    auto it = files.find(name);
    if (it == files.end())
        throw Error(Exit::software, "internal: " + name + " was not embedded at build time");
    return it->second;
}

std::vector<std::pair<std::string, std::string>> embedded_folder(const std::string& folder)
{
    const std::string prefix = folder + "/";
    std::vector<std::pair<std::string, std::string>> files;
    const auto& all = embedded_files();
    for (auto it = all.lower_bound(prefix); it != all.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it)
        files.emplace_back(it->first.substr(prefix.size()), it->second);
    return files;
}

}  // namespace kdelay
