#include "bpf/embedded.h"

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

}  // namespace kdelay
