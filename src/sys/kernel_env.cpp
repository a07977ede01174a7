#include "sys/kernel_env.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string.h>
#include <sys/utsname.h>

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

}  // namespace

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

KernelHeaders::KernelHeaders()
{
    struct utsname u {};
    uname(&u);
    if (std::getenv("BCC_KERNEL_SOURCE"))
        return;  // the user's choice
    tree_ = find_header_tree("/lib/modules", u.release);
    if (tree_.release == u.release)
        return;  // BCC finds it itself
    std::string source = tree_.build;
    if (!tree_.source.empty()) {
        char tmpl[] = "/tmp/kdelay-headers-XXXXXX";
        if (!mkdtemp(tmpl))
            throw Error(Exit::osfile, std::string("cannot make a directory for the kernel header tree: ") +
                                          std::strerror(errno));
        merged_dir_ = tmpl;
        try {
            merge_header_tree(tree_, merged_dir_ + "/tree");
        } catch (const fs::filesystem_error& e) {
            std::error_code ec;
            fs::remove_all(merged_dir_, ec);
            throw Error(Exit::osfile, "cannot link the kernel header tree of " + tree_.release + ": " + e.what());
        }
        source = merged_dir_ + "/tree";
    }
    setenv("BCC_KERNEL_SOURCE", source.c_str(), 1);
    set_env_ = true;
}

KernelHeaders::~KernelHeaders()
{
    if (set_env_)
        unsetenv("BCC_KERNEL_SOURCE");
    std::error_code ec;
    if (!merged_dir_.empty())
        fs::remove_all(merged_dir_, ec);  // the links only, never what they point at
}

}  // namespace kdelay
