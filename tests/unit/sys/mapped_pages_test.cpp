// Letting go of a mapped library's clean pages: they leave the RSS and
// come back unchanged; a written page is never dropped.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

#include "sys/mapped_pages.h"
#include "sys/process.h"

using namespace kdelay;

namespace {

constexpr std::size_t kPages = 64;

// A file of kPages pages, each filled with one letter, a to z in turn.
struct PagedFile {
    std::string path;
    int fd = -1;
    std::size_t size = kPages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    PagedFile()
    {
        char name[] = "/tmp/kdelay-mapped-pages-XXXXXX";
        fd = mkstemp(name);
        path = name;
        for (std::size_t i = 0; i < kPages; ++i) {
            const std::string page(size / kPages, static_cast<char>('a' + i % 26));
            EXPECT_EQ(write(fd, page.data(), page.size()), static_cast<ssize_t>(page.size()));
        }
    }
    ~PagedFile()
    {
        close(fd);
        unlink(path.c_str());
    }
};

// The resident kB of this process's mappings of path, from smaps.
std::size_t resident_kb_of(const std::string& path)
{
    const std::string smaps = read_file("/proc/self/smaps");
    std::size_t total = 0;
    for (std::size_t at = smaps.find(path); at != std::string::npos; at = smaps.find(path, at + 1)) {
        const std::size_t rss = smaps.find("\nRss:", at);
        if (rss != std::string::npos)
            total += std::strtoul(smaps.c_str() + rss + 5, nullptr, 10);
    }
    return total;
}

std::size_t touch(const char* p, std::size_t size)
{
    std::size_t sum = 0;
    for (std::size_t i = 0; i < size; i += static_cast<std::size_t>(sysconf(_SC_PAGESIZE)))
        sum += static_cast<unsigned char>(p[i]);
    return sum;
}

}  // namespace

TEST(MappedPages, ACleanMappingLeavesTheRssAndReadsTheSameAfter)
{
    PagedFile file;
    auto* p = static_cast<const char*>(mmap(nullptr, file.size, PROT_READ, MAP_PRIVATE, file.fd, 0));
    ASSERT_NE(p, MAP_FAILED);
    const std::size_t sum = touch(p, file.size);
    ASSERT_GE(resident_kb_of(file.path), file.size / 1024);

    EXPECT_EQ(unmap_clean_pages_of({file.path}), file.size);
    EXPECT_EQ(resident_kb_of(file.path), 0u);
    EXPECT_EQ(touch(p, file.size), sum);
    munmap(const_cast<char*>(p), file.size);
}

TEST(MappedPages, AMappingWithAWrittenPageIsLeftWhole)
{
    PagedFile file;
    // A library's RELRO segment: written by the loader, then read-only.
    auto* p = static_cast<char*>(mmap(nullptr, file.size, PROT_READ | PROT_WRITE, MAP_PRIVATE, file.fd, 0));
    ASSERT_NE(p, MAP_FAILED);
    touch(p, file.size);
    p[0] = 'Z';
    ASSERT_EQ(mprotect(p, file.size, PROT_READ), 0);

    EXPECT_EQ(unmap_clean_pages_of({file.path}), 0u);
    EXPECT_EQ(p[0], 'Z');
    EXPECT_GE(resident_kb_of(file.path), file.size / 1024);
    munmap(p, file.size);
}

TEST(MappedPages, OnlyTheNamedFilesAreTouched)
{
    PagedFile named, other;
    auto* a = static_cast<const char*>(mmap(nullptr, named.size, PROT_READ, MAP_PRIVATE, named.fd, 0));
    auto* b = static_cast<const char*>(mmap(nullptr, other.size, PROT_READ, MAP_PRIVATE, other.fd, 0));
    ASSERT_NE(a, MAP_FAILED);
    ASSERT_NE(b, MAP_FAILED);
    touch(a, named.size);
    touch(b, other.size);

    EXPECT_EQ(unmap_clean_pages_of({named.path}), named.size);
    EXPECT_GE(resident_kb_of(other.path), other.size / 1024);
    munmap(const_cast<char*>(a), named.size);
    munmap(const_cast<char*>(b), other.size);
}
