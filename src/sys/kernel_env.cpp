#include "sys/kernel_env.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/error.h"

namespace kdelay {
namespace {

namespace fs = std::filesystem;

bool has_include(const fs::path& dir)
{
    std::error_code ec;
    return fs::is_directory(dir / "include", ec);
}

// Debian's name for the headers of the machine's architecture.
std::string headers_package()
{
    struct utsname u {};
    uname(&u);
    const std::string machine = u.machine;
    if (machine == "x86_64")
        return "linux-headers-amd64";
    if (machine == "aarch64")
        return "linux-headers-arm64";
    return "the linux-headers package of this architecture";
}

std::optional<HeaderTree> tree_of(const fs::path& release_dir)
{
    if (!has_include(release_dir / "build"))
        return std::nullopt;
    HeaderTree tree{release_dir.filename().string(), (release_dir / "build").string(), ""};
    if (has_include(release_dir / "source"))
        tree.source = (release_dir / "source").string();
    return tree;
}

void merge_into(const fs::path& dir, const fs::path& source, const fs::path& build)
{
    fs::create_directories(dir);
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(build, ec)) {
        const fs::path name = entry.path().filename();
        const fs::path other = source / name;
        if (fs::is_directory(entry.path(), ec) && fs::is_directory(other, ec))
            merge_into(dir / name, other, entry.path());
        else
            fs::create_symlink(fs::absolute(entry.path()), dir / name);
    }
    for (const auto& entry : fs::directory_iterator(source, ec)) {
        const fs::path target = dir / entry.path().filename();
        if (!fs::exists(fs::symlink_status(target, ec)))
            fs::create_symlink(fs::absolute(entry.path()), target);
    }
}

const char* const kPrivatePrefix = "kdelay-headers-";

// Whether the private tree dir is abandoned (see sweep_abandoned_header_trees).
bool abandoned(const fs::path& dir)
{
    struct stat st {};
    if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        return false;
    const int fd = open((dir / "lock").c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT && time(nullptr) - st.st_mtime > 60;
    const bool unlocked = flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    return unlocked;
}

}  // namespace

void sweep_abandoned_header_trees(const std::string& parent)
{
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(parent, ec)) {
        if (entry.path().filename().string().rfind(kPrivatePrefix, 0) == 0 && abandoned(entry.path()))
            fs::remove_all(entry.path(), ec);  // best effort: another sweeper may race us
    }
}

HeaderTree find_header_tree(const std::string& modules_dir, const std::string& running_release)
{
    const fs::path modules = modules_dir;
    if (auto own = tree_of(modules / running_release))
        return *own;
    std::optional<HeaderTree> newest;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(modules, ec)) {
        auto tree = tree_of(entry.path());
        if (tree && (!newest || strverscmp(tree->release.c_str(), newest->release.c_str()) > 0))
            newest = std::move(tree);
    }
    if (!newest)
        throw Error(Exit::osfile, "no kernel header tree under " + modules.string() +
                                      "; BCC compiles against one. Install " + headers_package());
    return *newest;
}

void merge_header_tree(const HeaderTree& tree, const std::string& dir)
{
    merge_into(dir, tree.source, tree.build);
}

void write_header_tree(const TreeFiles& files, const std::string& dir)
{
    for (const auto& [path, bytes] : files) {
        const fs::path file = fs::path(dir) / path;
        fs::create_directories(file.parent_path());
        std::ofstream out(file, std::ios::binary);
        out << bytes;
        if (!out.flush())
            throw fs::filesystem_error("cannot write", file, std::make_error_code(std::errc::io_error));
    }
}

KernelHeaders::KernelHeaders(const TreeFiles& own)
{
    struct utsname u {};
    uname(&u);
    if (std::getenv("BCC_KERNEL_SOURCE"))
        return;  // the user's choice
    const bool use_own = std::string(u.machine) == "x86_64" && !own.empty();
    HeaderTree tree;
    if (!use_own) {
        tree = find_header_tree("/lib/modules", u.release);
        if (tree.release == u.release)
            return;  // BCC finds it itself
    }
    std::string source = tree.build;
    if (use_own || !tree.source.empty()) {
        sweep_abandoned_header_trees("/tmp");
        std::string tmpl = std::string("/tmp/") + kPrivatePrefix + "XXXXXX";
        if (!mkdtemp(tmpl.data()))
            throw Error(Exit::osfile, std::string("cannot make a directory for the kernel header tree: ") +
                                          std::strerror(errno));
        private_dir_ = tmpl;
        lock_fd_ = open((private_dir_ + "/lock").c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (lock_fd_ >= 0)
            flock(lock_fd_, LOCK_EX);
        source = private_dir_ + "/tree";
        try {
            if (use_own)
                write_header_tree(own, source);
            else
                merge_header_tree(tree, source);
        } catch (const fs::filesystem_error& e) {
            std::error_code ec;
            fs::remove_all(private_dir_, ec);
            if (lock_fd_ >= 0)
                close(lock_fd_);
            throw Error(Exit::osfile, std::string("cannot lay out the kernel header tree for BCC: ") + e.what());
        }
    }
    setenv("BCC_KERNEL_SOURCE", source.c_str(), 1);
    set_env_ = true;
}

KernelHeaders::~KernelHeaders()
{
    if (set_env_)
        unsetenv("BCC_KERNEL_SOURCE");
    std::error_code ec;
    if (!private_dir_.empty())
        fs::remove_all(private_dir_, ec);  // never what a merged tree's links point at
    if (lock_fd_ >= 0)
        close(lock_fd_);
}

}  // namespace kdelay
