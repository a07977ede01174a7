#include "timeline/trace_file.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "core/error.h"
#include "core/write_all.h"

namespace kdelay {
namespace {

// At most 32 characters of a name, each safe in a file name.
std::string safe(const std::string& name)
{
    std::string out;
    for (unsigned char c : name) {
        if (out.size() == 32)
            break;
        out += std::isalnum(c) || c == '.' || c == '_' || c == '-' ? static_cast<char>(c) : '_';
    }
    if (out.empty() || out[0] == '.' || out[0] == '-')
        out.insert(out.begin(), '_');
    return out;
}

}  // namespace

std::string trace_file_name(const TraceFileName& n, const char* suffix)
{
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(n.start.time_since_epoch()).count();
    const time_t seconds = static_cast<time_t>(ms / 1000);
    tm local{};
    localtime_r(&seconds, &local);
    char when[32];
    strftime(when, sizeof(when), "%Y%m%dT%H%M%S", &local);
    return fmt::format("kdelay-stall-{}.{:03}-{}-{}-{}-{}{}", when, ms % 1000, safe(n.process), n.pid,
                       safe(n.thread), n.tid, suffix);
}

std::string write_trace_file(const std::string& dir, const std::string& name, const std::string& bytes,
                             const char* option)
{
    const int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        throw Error(Exit::cantcreat, std::string(option) + ": cannot open " + dir + ": " + strerror(errno));
    std::string chosen = name;
    int fd = -1;
    for (int n = 1; n < 100 && fd < 0; ++n) {
        fd = openat(dfd, chosen.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
        if (fd < 0 && errno != EEXIST)
            break;
        if (fd < 0)
            chosen = name.substr(0, name.rfind('.')) + "-" + std::to_string(n) + name.substr(name.rfind('.'));
    }
    const int open_errno = errno;
    close(dfd);
    if (fd < 0)
        throw Error(Exit::cantcreat, std::string(option) + ": cannot create a file in " + dir + ": " + strerror(open_errno));
    if (!write_all(fd, bytes)) {
        const int write_errno = errno;
        close(fd);
        throw Error(Exit::cantcreat, std::string(option) + ": cannot write " + chosen + ": " + strerror(write_errno));
    }
    close(fd);
    return dir + (dir.empty() || dir.back() == '/' ? "" : "/") + chosen;
}

}  // namespace kdelay
