#include "sys/kernel_env.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <vector>

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

// A directory opened once and written only through its descriptor: no name
// under it is looked up twice, and no link in it is followed, so nobody
// can swap a part of the path between a check and a write.
class Dir {
public:
    explicit Dir(int fd) : fd_(fd) {}
    // The directory at path, which must not be a link.
    static Dir open_path(const std::string& path)
    {
        return Dir(checked(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), path));
    }
    ~Dir()
    {
        if (fd_ >= 0)
            close(fd_);
    }
    Dir(Dir&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    Dir(const Dir&) = delete;
    Dir& operator=(const Dir&) = delete;

    // The subdirectory name, made (0700) when it is not there.
    Dir sub(const std::string& name) const
    {
        if (mkdirat(fd_, name.c_str(), 0700) != 0 && errno != EEXIST)
            checked(-1, name);
        return Dir(checked(openat(fd_, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), name));
    }
    // A new file name holding bytes; one already there is an error.
    void write(const std::string& name, const std::string& bytes) const
    {
        const int fd = checked(openat(fd_, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644), name);
        size_t done = 0;
        while (done < bytes.size()) {
            const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
            if (n <= 0) {
                close(fd);
                checked(-1, name);
            }
            done += static_cast<size_t>(n);
        }
        close(fd);
    }
    void link(const std::string& name, const fs::path& target) const
    {
        checked(symlinkat(target.c_str(), fd_, name.c_str()), name);
    }
    bool has(const std::string& name) const
    {
        struct stat st {};
        return fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    }
    int fd() const { return fd_; }

private:
    static int checked(int r, const std::string& what)
    {
        if (r < 0)
            throw fs::filesystem_error("cannot write", what, std::error_code(errno, std::generic_category()));
        return r;
    }
    int fd_;
};

void merge_into(const Dir& dir, const fs::path& source, const fs::path& build)
{
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(build, ec)) {
        const std::string name = entry.path().filename();
        const fs::path other = source / name;
        if (fs::is_directory(entry.path(), ec) && fs::is_directory(other, ec))
            merge_into(dir.sub(name), other, entry.path());
        else
            dir.link(name, fs::absolute(entry.path()));
    }
    for (const auto& entry : fs::directory_iterator(source, ec))
        if (!dir.has(entry.path().filename()))
            dir.link(entry.path().filename(), fs::absolute(entry.path()));
}

void write_files(const TreeFiles& files, const Dir& root)
{
    for (const auto& [path, bytes] : files) {
        const fs::path file(path);
        if (file.is_absolute() || path.find("..") != std::string::npos)
            throw fs::filesystem_error("not a path inside the tree", file, std::make_error_code(std::errc::invalid_argument));
        std::vector<Dir> dirs;
        for (const auto& part : file.parent_path())
            dirs.push_back((dirs.empty() ? root : dirs.back()).sub(part));
        (dirs.empty() ? root : dirs.back()).write(file.filename(), bytes);
    }
}

const char* const kPrivatePrefix = "kdelay-headers-";

// A tree this young is never swept: its maker may be between making it and
// locking it.
constexpr time_t kYoungTreeSeconds = 60;

// Whether the private tree dir is abandoned (see sweep_abandoned_header_trees).
bool abandoned(const fs::path& dir)
{
    struct stat st {};
    if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        return false;
    if (time(nullptr) - st.st_mtime <= kYoungTreeSeconds)
        return false;
    const int fd = open((dir / "lock").c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT;
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
    fs::create_directories(dir);
    merge_into(Dir::open_path(dir), tree.source, tree.build);
}

void write_header_tree(const TreeFiles& files, const std::string& dir)
{
    fs::create_directories(dir);
    write_files(files, Dir::open_path(dir));
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
        source = private_dir_ + "/tree";
        try {
            // Written through the directory mkdtemp made (0700, ours), so
            // its name is looked up once.
            const Dir dir = Dir::open_path(private_dir_);
            lock_fd_ = openat(dir.fd(), "lock", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (lock_fd_ >= 0)
                flock(lock_fd_, LOCK_EX);
            if (use_own)
                write_files(own, dir.sub("tree"));
            else
                merge_into(dir.sub("tree"), tree.source, tree.build);
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
