#include "sys/elf_object.h"

#include <cerrno>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

namespace kdelay {
namespace {

const char* file_kind(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

const char* elf_kind(uint16_t type)
{
    switch (type) {
    case ET_REL: return "a relocatable object (.o)";
    case ET_CORE: return "a core file";
    default: return "of an unknown ELF type";
    }
}

}  // namespace

void check_elf_object(const std::string& path, const std::string& what)
{
    const std::string name = what + " " + path;
    struct stat st {};
    if (stat(path.c_str(), &st) != 0)
        throw Error(Exit::config, errno == ENOENT ? name + " does not exist"
                                                  : "cannot read " + name + ": " + strerror(errno));
    if (!S_ISREG(st.st_mode))
        throw Error(Exit::config, name + " is " + file_kind(st.st_mode) + ", not an ELF object");
    // O_NONBLOCK: should the file be swapped for a FIFO after stat, open
    // still returns at once, and fstat below catches it.
    const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        throw Error(Exit::config, "cannot read " + name + ": " + strerror(errno));
    try {
        check_elf_file(fd, name);
    } catch (...) {
        close(fd);
        throw;
    }
    close(fd);
}

void check_elf_file(int fd, const std::string& name)
{
    struct stat st {};
    Elf64_Ehdr eh{};
    const bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    const ssize_t got = regular ? pread(fd, &eh, sizeof(eh), 0) : -1;
    if (!regular)
        throw Error(Exit::config, name + " is " + file_kind(st.st_mode) + ", not an ELF object");
    // e_type sits at the same offset in 32- and 64-bit headers.
    if (got < static_cast<ssize_t>(EI_NIDENT + sizeof(eh.e_type)) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
        throw Error(Exit::config, name + " is not an ELF object");
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
        throw Error(Exit::config, name + " is " + elf_kind(eh.e_type) +
                                      ", not an executable or shared library");
}

}  // namespace kdelay
