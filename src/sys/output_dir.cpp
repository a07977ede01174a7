#include "sys/output_dir.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/write_all.h"

namespace kdelay {
namespace {

// Twelve random letters: a name no one can plant a file at beforehand.
std::string random_letters()
{
    unsigned char bytes[12] = {};
    if (getrandom(bytes, sizeof(bytes), 0) != static_cast<ssize_t>(sizeof(bytes)))
        throw Error(Exit::oserr, std::string("cannot draw a random name: ") + strerror(errno));
    std::string out;
    for (const unsigned char b : bytes)
        out += static_cast<char>('a' + b % 26);
    return out;
}

}  // namespace

std::pair<std::string, std::string> split_path(const std::string& path)
{
    const size_t slash = path.rfind('/');
    if (slash == std::string::npos)
        return {".", path};
    return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

OutputDir::OutputDir(std::string dir, std::string option) : dir_(std::move(dir)), option_(std::move(option))
{
    fd_.reset(open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd_.valid())
        throw Error(Exit::cantcreat, option_ + ": cannot open the directory " + dir_ + ": " + strerror(errno));
    struct stat st {};
    if (fstat(fd_.get(), &st) != 0)
        throw Error(Exit::cantcreat, option_ + ": cannot read " + dir_ + ": " + strerror(errno));
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
        throw Error(Exit::cantcreat, option_ + ": any user can write to " + dir_ +
                                         " and it has no sticky bit, so they could move or replace kdelay's files: "
                                         "give a directory only root can write to");
}

std::string OutputDir::path_of(const std::string& name) const
{
    return dir_ + (dir_.empty() || dir_.back() == '/' ? "" : "/") + name;
}

std::string OutputDir::create(const std::string& name, const std::string& bytes, mode_t mode)
{
    const size_t dot = name.rfind('.');
    const std::string stem = dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
    const std::string suffix = stem.size() == name.size() ? "" : name.substr(dot);
    std::string chosen = name;
    UniqueFd fd;
    for (int n = 1; n <= 100 && !fd.valid(); ++n) {
        fd.reset(openat(fd_.get(), chosen.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
        if (!fd.valid() && errno != EEXIST)
            break;
        if (!fd.valid())
            chosen = stem + "-" + std::to_string(n) + suffix;
    }
    if (!fd.valid())
        throw Error(Exit::cantcreat, option_ + ": cannot create a file in " + dir_ + ": " +
                                         (errno == EEXIST ? std::string("its names up to -99 are taken") : strerror(errno)));
    if (!write_all(fd.get(), bytes))
        throw Error(Exit::cantcreat, option_ + ": cannot write " + path_of(chosen) + ": " + strerror(errno));
    return path_of(chosen);
}

void OutputDir::replace(const std::string& name, const std::string& bytes, mode_t mode)
{
    // Hidden, and not *.prom: node_exporter never reads it half written.
    std::string temp;
    UniqueFd fd;
    for (int tries = 0; tries < 8 && !fd.valid(); ++tries) {
        temp = "." + name + "." + random_letters();
        fd.reset(openat(fd_.get(), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
        if (!fd.valid() && errno != EEXIST)
            break;
    }
    const auto fail = [&](const char* what) {
        const int err = errno;
        if (fd.valid())
            unlinkat(fd_.get(), temp.c_str(), 0);
        throw Error(Exit::cantcreat, option_ + ": cannot " + what + " " + path_of(name) + ": " + strerror(err));
    };
    if (!fd.valid())
        fail("write");
    // The mode asked for, whatever the umask.
    if (fchmod(fd.get(), mode) != 0 || !write_all(fd.get(), bytes))
        fail("write");
    if (close(fd.release()) != 0) {
        const int err = errno;
        unlinkat(fd_.get(), temp.c_str(), 0);
        throw Error(Exit::cantcreat, option_ + ": cannot write " + path_of(name) + ": " + strerror(err));
    }
    if (renameat(fd_.get(), temp.c_str(), fd_.get(), name.c_str()) != 0) {
        const int err = errno;
        unlinkat(fd_.get(), temp.c_str(), 0);
        throw Error(Exit::cantcreat, option_ + ": cannot replace " + path_of(name) + ": " + strerror(err));
    }
}

}  // namespace kdelay
