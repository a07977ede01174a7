// The kernel header tree BCC compiles against, had without a setup step.
//
// kdelay's programs include no kernel headers and take every offset from
// BTF; BCC's helpers only need some tree to parse. On x86-64 that is kdelay's
// own, cut to what the helpers use (bpf/bcc_tree/): no headers package is
// needed, and the compile parses a dozen lines instead of about 130 headers.
// Elsewhere, BCC looks only at /lib/modules/$(uname -r)/{build,source}; when
// the running kernel has no headers package of its own (a cloud or custom
// kernel, a chroot, a container), kdelay takes the newest tree that a headers
// package installed for another release.
#pragma once

#include <string>
#include <utility>
#include <vector>

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
// Like write_header_tree, it writes through dir's descriptor and follows no
// link that it did not make.
void merge_header_tree(const HeaderTree& tree, const std::string& dir);

// A header tree's files: each file's path inside the tree and its bytes.
using TreeFiles = std::vector<std::pair<std::string, std::string>>;

// Writes files under dir, making the folders they need, through dir's
// descriptor: a link or a file already inside is an error
// (fs::filesystem_error), never followed or overwritten.
void write_header_tree(const TreeFiles& files, const std::string& dir);

// Removes the private header trees (kdelay-headers-*) under parent that no
// kdelay compiles against any more: a killed run leaves its tree behind. A
// tree in use holds an flock on its "lock" file. A tree changed in the last
// minute is never removed, locked or not: its maker may be between making
// the lock file and locking it. Only directories of this user are touched,
// never what links point at.
void sweep_abandoned_header_trees(const std::string& parent);

// Makes BCC compile against a header tree while it lives, named by
// BCC_KERNEL_SOURCE in a private temporary directory: none of this when the
// user set BCC_KERNEL_SOURCE; on x86-64, kdelay's own tree (own, written
// out; bpf/bcc_tree/); elsewhere an installed tree: the running release's
// (found by BCC itself) or another release's, merged when split. Throws
// Error(Exit::osfile) when no tree can be had.
class KernelHeaders {
public:
    explicit KernelHeaders(const TreeFiles& own);
    ~KernelHeaders();
    KernelHeaders(const KernelHeaders&) = delete;
    KernelHeaders& operator=(const KernelHeaders&) = delete;

private:
    std::string private_dir_;  // removed on destruction
    int lock_fd_ = -1;         // flock held on private_dir_/lock while it lives
    bool set_env_ = false;
};

}  // namespace kdelay
