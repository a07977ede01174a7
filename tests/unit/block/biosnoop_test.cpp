#include "block/biosnoop.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "block/block_program.h"
#include "core/error.h"

using namespace kdelay;

TEST(Biosnoop, ProgramFiltersByPidAndDiskWithoutKernelHeaders)
{
    if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
        GTEST_SKIP() << "no kernel BTF";
    BiosnoopConfig cfg;
    cfg.bpf.pids = {4321};
    cfg.dev = make_dev(254, 0);
    const std::string src = render_biosnoop_program(cfg, biosnoop_layout());
    EXPECT_NE(src.find("#define FILTER_PID 4321"), std::string::npos);
    EXPECT_NE(src.find("#define FILTER_DEV " + std::to_string(254u << 20)), std::string::npos);
    EXPECT_NE(src.find("int kd_block_start("), std::string::npos) << "block_io.bpf.h inlined";
    EXPECT_NE(src.find("BPF_PERF_OUTPUT(events);"), std::string::npos);
    EXPECT_EQ(src.find("#include"), std::string::npos);
}

TEST(Biosnoop, DiskNamesAndNumbers)
{
    EXPECT_EQ(make_dev(254, 1), (254u << 20) | 1u);
    EXPECT_EQ(disk_name(make_dev(4095, 1048575)), "4095:1048575");  // no such device
    EXPECT_THROW(dev_of_disk("no-such-disk"), Error);
    EXPECT_THROW(dev_of_disk("../../etc"), Error);
    EXPECT_THROW(dev_of_disk(""), Error);
}
