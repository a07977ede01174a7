// The kernel header tree BCC compiles against, found without a setup step.
//
// BCC looks only at /lib/modules/$(uname -r)/{build,source}. When the running
// kernel has no headers package of its own (a cloud or custom kernel, a
// chroot, a container), kdelay takes the newest tree that a headers package
// installed for another release and points BCC at it through
// BCC_KERNEL_SOURCE. kdelay's programs include no kernel headers and take
// every offset from BTF; BCC's helpers only need some tree to parse.
#pragma once

#include <string>

namespace kdelay {

// A header tree as BCC expects it: build holds the configuration and the
// generated headers; source, when the distribution splits the tree (Debian:
// linux-headers-*-common), holds the rest. Empty source: one whole tree.
struct HeaderTree {
    std::string release;
    std::string build;
    std::string source;
};

// The tree to compile against under modules_dir (/lib/modules): the running
// release's if it has one, else the newest release's (by version order).
// No tree at all: Error(Exit::osfile) naming the package to install.
HeaderTree find_header_tree(const std::string& modules_dir, const std::string& running_release);

// Links source and build into dir as one tree, as an in-tree build would
// have it: an entry found in both that is a directory in both is merged the
// same way, level by level; for any other clash, build's entry wins.
void merge_header_tree(const HeaderTree& tree, const std::string& dir);

// Makes BCC compile against an installed header tree while it lives: none
// of this when the running kernel has its own tree or the user set
// BCC_KERNEL_SOURCE; else BCC_KERNEL_SOURCE names another release's tree,
// merged in a private temporary directory when split. Throws
// Error(Exit::osfile) when no tree is installed.
class KernelHeaders {
public:
    KernelHeaders();
    ~KernelHeaders();
    KernelHeaders(const KernelHeaders&) = delete;
    KernelHeaders& operator=(const KernelHeaders&) = delete;

    // The release whose headers BCC uses.
    const std::string& release() const { return tree_.release; }

private:
    HeaderTree tree_;
    std::string merged_dir_;  // removed on destruction
    bool set_env_ = false;
};

}  // namespace kdelay
