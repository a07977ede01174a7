#include "loader/kallsyms_bypass.h"

#include <bcc/bcc_syms.h>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

#include "loader/session.h"

using namespace kdelay;

namespace {

// Bytes this process has read so far (/proc/self/io rchar): reading
// /proc/kallsyms costs megabytes, so a lookup that skipped it shows.
unsigned long long bytes_read()
{
    std::ifstream io("/proc/self/io");
    std::string key;
    unsigned long long value = 0;
    while (io >> key >> value)
        if (key == "rchar:")
            return value;
    return 0;
}

int resolve(void* cache, const char* name, uint64_t* addr)
{
    return bcc_symcache_resolve_name(cache, nullptr, name, addr);
}

class KallsymsBypassTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        // Without root, kallsyms shows no addresses and libbcc finds nothing.
        if (geteuid() != 0)
            GTEST_SKIP() << "needs root to read kernel symbol addresses";
    }
};

TEST_F(KallsymsBypassTest, HelperNamesAreAnsweredWithoutReadingKallsyms)
{
    KallsymsBypass bypass;
    const unsigned long before = KallsymsBypass::answered();
    const unsigned long long read_before = bytes_read();
    void* cache = bcc_symcache_new(-1, nullptr);
    uint64_t addr = 1;
    EXPECT_EQ(resolve(cache, "bpf_probe_read_kernel", &addr), 0);
    EXPECT_EQ(resolve(cache, "bpf_probe_read_user", &addr), 0);
    bcc_free_symcache(cache, -1);
    EXPECT_EQ(KallsymsBypass::answered(), before + 2);
    EXPECT_LT(bytes_read() - read_before, 1u << 20);
}

TEST_F(KallsymsBypassTest, OtherNamesStillResolveThroughKallsyms)
{
    uint64_t real_addr = 0;
    void* real = bcc_symcache_new(-1, nullptr);
    ASSERT_EQ(resolve(real, "schedule", &real_addr), 0);
    bcc_free_symcache(real, -1);
    ASSERT_NE(real_addr, 0u);

    KallsymsBypass bypass;
    void* cache = bcc_symcache_new(-1, nullptr);
    uint64_t addr = 0;
    EXPECT_EQ(resolve(cache, "schedule", &addr), 0);
    EXPECT_EQ(addr, real_addr);
    EXPECT_NE(resolve(cache, "kdelay_no_such_kernel_symbol", &addr), 0);
    bcc_free_symcache(cache, -1);
}

TEST_F(KallsymsBypassTest, OutsideABypassLookupsAreLibbccs)
{
    const unsigned long before = KallsymsBypass::answered();
    void* cache = bcc_symcache_new(-1, nullptr);
    uint64_t addr = 0;
    EXPECT_EQ(resolve(cache, "bpf_probe_read_kernel", &addr), 0);
    EXPECT_NE(addr, 0u);  // a real kallsyms address
    bcc_free_symcache(cache, -1);
    EXPECT_EQ(KallsymsBypass::answered(), before);
}

// The point of it all: libbcc's own compiler reaches kdelay's definitions.
TEST_F(KallsymsBypassTest, LibbccsCompilerAsksTheBypass)
{
    const std::string source = R"(
int reads(struct bpf_raw_tracepoint_args *ctx)
{
    u64 value = 0;
    bpf_probe_read_kernel(&value, sizeof(value), (void *)ctx->args[0]);
    bpf_probe_read_user(&value, sizeof(value), (void *)ctx->args[1]);
    return value == 0;
}
)";
    const unsigned long before = KallsymsBypass::answered();
    try {
        BpfSession session(source);
    } catch (const std::exception& e) {
        GTEST_SKIP() << "cannot compile eBPF here: " << e.what();
    }
    EXPECT_GE(KallsymsBypass::answered(), before + 2);
}

}  // namespace
