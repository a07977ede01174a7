// A directory that kdelay, as root, writes its files into (--timeline,
// --profile-folded, --metrics): opened once, so that a link swapped in for
// its path later changes nothing; each file made new in it (O_EXCL,
// O_NOFOLLOW), so that nothing planted there is opened; and refused when
// others may write to it without the sticky bit, where they could rename
// or delete what kdelay writes.
#pragma once

#include <string>
#include <sys/types.h>
#include <utility>

#include "core/unique_fd.h"

namespace kdelay {

class OutputDir {
public:
    // Opens dir for option's files (named in errors). Throws
    // Error(Exit::cantcreat) when it cannot, or when others may write to it
    // without the sticky bit.
    OutputDir(std::string dir, std::string option);

    // Writes bytes as a new file named name, or, when that is taken, with
    // "-N" before its suffix; returns its path. Throws Error(cantcreat).
    std::string create(const std::string& name, const std::string& bytes, mode_t mode = 0640);
    // Replaces the file named name with bytes at once: written under a
    // hidden name of random letters, then renamed over it, so that a
    // reader (node_exporter) never sees it half written. Throws
    // Error(cantcreat).
    void replace(const std::string& name, const std::string& bytes, mode_t mode = 0644);

    const std::string& path() const { return dir_; }
    std::string path_of(const std::string& name) const;

private:
    std::string dir_;
    std::string option_;
    UniqueFd fd_;
};

// A file's path as its directory ("." for none) and its name.
std::pair<std::string, std::string> split_path(const std::string& path);

}  // namespace kdelay
