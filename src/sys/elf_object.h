// Checks that a file named for a uprobe is something uprobes can use, before
// anything (BCC included) opens it for real: a FIFO would block that open
// forever, and a device or /proc/kcore would be read as if it were code.
#pragma once

#include <string>

namespace kdelay {

// Throws Error(Exit::config) with one line saying what is wrong with path:
// missing, not a regular file, not ELF, or ELF but not an executable or
// shared object. what names the role, e.g. "uprobe object".
void check_elf_object(const std::string& path, const std::string& what);
// The same of a file opened already (fd), shown as name.
void check_elf_file(int fd, const std::string& name);

}  // namespace kdelay
