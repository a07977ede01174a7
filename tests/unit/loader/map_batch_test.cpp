// Reading and clearing real kernel maps (root): the batch path, the per-key
// fallback, per-CPU values, and maps far larger than one batch.
#include "loader/map_batch.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>
#include <map>
#include <unistd.h>

using namespace kdelay;

namespace {

struct Key {
    uint32_t tid;
    uint32_t kind;
};

class MapBatch : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (geteuid() != 0)
            GTEST_SKIP() << "creating BPF maps needs root";
    }
    void TearDown() override
    {
        if (fd_ >= 0)
            close(fd_);
    }
    // A map of type with n entries {i, i % 7} -> i * 3 (per CPU: i * 3 + cpu).
    int make(bpf_map_type type, uint32_t n, uint32_t max_entries)
    {
        fd_ = bpf_map_create(type, "kd_test", sizeof(Key), sizeof(uint64_t), max_entries, nullptr);
        EXPECT_GE(fd_, 0) << strerror(errno);
        const bool percpu = type == BPF_MAP_TYPE_PERCPU_HASH;
        std::vector<uint64_t> value(percpu ? libbpf_num_possible_cpus() : 1);
        for (uint32_t i = 0; i < n; ++i) {
            const Key k{i, i % 7};
            for (size_t c = 0; c < value.size(); ++c)
                value[c] = uint64_t{i} * 3 + c;
            EXPECT_EQ(bpf_map_update_elem(fd_, &k, value.data(), BPF_NOEXIST), 0);
        }
        return fd_;
    }
    size_t size_of_map()
    {
        Key k, next;
        size_t n = 0;
        for (const void* prev = nullptr; bpf_map_get_next_key(fd_, prev, &next) == 0; prev = &k, ++n)
            k = next;
        return n;
    }
    int fd_ = -1;
};

void expect_all(const std::vector<std::pair<Key, uint64_t>>& got, uint32_t n)
{
    ASSERT_EQ(got.size(), n);
    std::map<uint32_t, uint64_t> seen;
    for (const auto& [k, v] : got) {
        EXPECT_EQ(k.kind, k.tid % 7);
        seen[k.tid] = v;
    }
    ASSERT_EQ(seen.size(), n);  // no key twice
    for (const auto& [tid, v] : seen)
        EXPECT_EQ(v, uint64_t{tid} * 3);
}

TEST_F(MapBatch, ReadsAndClearsAMapOfManyBatches)
{
    const int fd = make(BPF_MAP_TYPE_HASH, 100000, 1 << 18);
    expect_all(read_map_as<Key, uint64_t>(fd), 100000);
    EXPECT_EQ(clear_map(fd), 100000u);
    EXPECT_EQ(size_of_map(), 0u);
    EXPECT_EQ(read_map(fd).count, 0u);
    EXPECT_EQ(clear_map(fd), 0u);  // an empty map is no error
}

TEST_F(MapBatch, PerKeyFallbackGivesTheSameAnswer)
{
    const int fd = make(BPF_MAP_TYPE_HASH, 5000, 8192);
    const MapEntries e = read_map_by_key(fd);
    EXPECT_EQ(e.count, 5000u);
    expect_all(read_map_as<Key, uint64_t>(fd), 5000);
    EXPECT_EQ(clear_map_by_key(fd), 5000u);
    EXPECT_EQ(size_of_map(), 0u);
}

TEST_F(MapBatch, PerCpuValuesComeOnePerPossibleCpu)
{
    const int fd = make(BPF_MAP_TYPE_PERCPU_HASH, 300, 1024);
    const MapEntries e = read_map(fd);
    const size_t cpus = libbpf_num_possible_cpus();
    ASSERT_EQ(e.count, 300u);
    ASSERT_EQ(e.value_size, 8 * cpus);
    for (size_t i = 0; i < e.count; ++i) {
        Key k;
        memcpy(&k, &e.keys[i * sizeof(Key)], sizeof(Key));
        for (size_t c = 0; c < cpus; ++c) {
            uint64_t v;
            memcpy(&v, &e.values[i * e.value_size + c * 8], 8);
            EXPECT_EQ(v, uint64_t{k.tid} * 3 + c);
        }
    }
    EXPECT_EQ(clear_map(fd), 300u);
    EXPECT_EQ(size_of_map(), 0u);
}

TEST_F(MapBatch, AWrongLayoutReadsAsNothing)
{
    const int fd = make(BPF_MAP_TYPE_HASH, 10, 64);
    EXPECT_TRUE((read_map_as<uint32_t, uint64_t>(fd).empty()));
}

}  // namespace
