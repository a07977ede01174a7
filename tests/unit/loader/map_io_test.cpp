// The map-I/O facade on real kernel maps (root): array and per-CPU
// elements, sums, whole maps, stack traces, and a value of the wrong size.
#include "loader/map_io.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>
#include <map>
#include <unistd.h>

#include "core/error.h"

using namespace kdelay;

namespace {

struct Pair {
    uint32_t a;
    uint32_t b;
};

class MapIoTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (geteuid() != 0)
            GTEST_SKIP() << "creating BPF maps needs root";
        fds_["array"] = bpf_map_create(BPF_MAP_TYPE_ARRAY, "kd_array", 4, sizeof(Pair), 4, nullptr);
        fds_["counters"] = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "kd_counters", 4, 8, 2, nullptr);
        fds_["pairs"] = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "kd_pairs", 4, 12, 1, nullptr);
        fds_["hash"] = bpf_map_create(BPF_MAP_TYPE_HASH, "kd_hash", 4, 8, 16, nullptr);
        fds_["stacks"] = bpf_map_create(BPF_MAP_TYPE_STACK_TRACE, "kd_stacks", 4, 127 * 8, 16, nullptr);
        for (const auto& [name, fd] : fds_)
            ASSERT_GE(fd, 0) << name << ": " << strerror(errno);
    }
    void TearDown() override
    {
        for (const auto& [name, fd] : fds_)
            if (fd >= 0)
                close(fd);
    }
    MapIo io()
    {
        return MapIo([this](const std::string& name) {
            auto it = fds_.find(name);
            if (it == fds_.end())
                throw Error(Exit::software, "no map " + name);
            return it->second;
        });
    }
    std::map<std::string, int> fds_;
};

}  // namespace

TEST_F(MapIoTest, ArrayElementsRoundTrip)
{
    MapIo maps = io();
    maps.set_element("array", 2, Pair{7, 9});
    const Pair p = maps.element<Pair>("array", 2);
    EXPECT_EQ(p.a, 7u);
    EXPECT_EQ(p.b, 9u);
    EXPECT_EQ(maps.element<Pair>("array", 0).a, 0u);
    EXPECT_THROW(maps.element<Pair>("array", 4), Error) << "past the end";
    EXPECT_THROW(maps.element<uint32_t>("array", 0), Error) << "another layout";
    EXPECT_THROW(maps.element<Pair>("none", 0), Error);
}

// Each CPU's value, at the kernel's 8-byte stride even for a 12-byte value.
TEST_F(MapIoTest, PerCpuElementsAndSums)
{
    const int cpus = libbpf_num_possible_cpus();
    std::vector<uint64_t> counts(cpus);
    for (int c = 0; c < cpus; ++c)
        counts[c] = 10 + c;
    const uint32_t one = 1;
    ASSERT_EQ(bpf_map_update_elem(fds_["counters"], &one, counts.data(), BPF_ANY), 0);
    std::vector<unsigned char> pairs(16 * cpus);
    for (int c = 0; c < cpus; ++c) {
        const uint32_t v[3] = {uint32_t(c), 100u + c, 7};
        memcpy(&pairs[16 * c], v, sizeof v);
    }
    const uint32_t zero = 0;
    ASSERT_EQ(bpf_map_update_elem(fds_["pairs"], &zero, pairs.data(), BPF_ANY), 0);

    MapIo maps = io();
    EXPECT_EQ(maps.per_cpu_sum("counters", 1), uint64_t(10 * cpus + cpus * (cpus - 1) / 2));
    EXPECT_EQ(maps.per_cpu_sum("counters", 0), 0u);
    struct Three {
        uint32_t x, y, z;
    };
    const auto got = maps.per_cpu<Three>("pairs", 0);
    ASSERT_EQ(got.size(), size_t(cpus));
    for (int c = 0; c < cpus; ++c) {
        EXPECT_EQ(got[c].x, uint32_t(c));
        EXPECT_EQ(got[c].y, 100u + c);
        EXPECT_EQ(got[c].z, 7u);
    }
}

TEST_F(MapIoTest, WholeMapsAndClear)
{
    for (uint32_t k = 1; k <= 5; ++k) {
        const uint64_t v = k * 11;
        ASSERT_EQ(bpf_map_update_elem(fds_["hash"], &k, &v, BPF_NOEXIST), 0);
    }
    MapIo maps = io();
    auto all = maps.entries<uint32_t, uint64_t>("hash");
    ASSERT_EQ(all.size(), 5u);
    for (const auto& [k, v] : all)
        EXPECT_EQ(v, k * 11);
    EXPECT_TRUE((maps.entries<uint64_t, uint64_t>("hash").empty())) << "another layout reads as nothing";
    maps.clear("hash");
    EXPECT_TRUE((maps.entries<uint32_t, uint64_t>("hash").empty()));
}

TEST_F(MapIoTest, AStackThatIsGoneIsEmpty)
{
    MapIo maps = io();
    EXPECT_TRUE(maps.stack("stacks", -1).empty()) << "a lost stack";
    EXPECT_TRUE(maps.stack("stacks", 3).empty()) << "an id with no trace";
}
