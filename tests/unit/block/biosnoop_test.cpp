#include "block/biosnoop.h"

#include <gtest/gtest.h>

#include <regex>
#include <unistd.h>

#include "../loader/preprocess.h"

#include "block/block_program.h"
#include "core/error.h"

using namespace kdelay;

TEST(Biosnoop, ProgramFiltersByPidAndDiskWithoutKernelHeaders)
{
    if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
        GTEST_SKIP() << "no kernel BTF";
    BiosnoopConfig cfg;
    cfg.bpf.pids = {4321, 4322};
    cfg.dev = make_dev(254, 0);
    const std::string src = render_biosnoop_program(cfg, biosnoop_layout());
    EXPECT_NE(src.find("#define TARGET_TGIDS 2\n#define TARGET_TGID_0 4321\n#define TARGET_TGID_1 4322\n"
                       "#define TARGET_TGID_2 4294967295\n"),
              std::string::npos)
        << "the list padded with KD_NO_ID";
    const std::string cc = kdtest::preprocessed(src);
    EXPECT_TRUE(std::regex_search(cc, std::regex(R"(i == 0 \? 4321 : i == 1 \? 4322 : i == 2 \? 4294967295)")));
    EXPECT_TRUE(std::regex_search(cc, std::regex(R"(for \(int i = 0; i < 2; i\+\+\)\s*if \(tgid == target_tgid\(i\)\))")))
        << "both processes compared";
    cfg.bpf.pids.clear();
    EXPECT_TRUE(std::regex_search(kdtest::preprocessed(render_biosnoop_program(cfg, biosnoop_layout())),
                                  std::regex(R"(tgid_is_target\(__u32 tgid\)\s*\{\s*if \(0 == 0\)\s*return 1;)")))
        << "no -p: every process";
    EXPECT_NE(src.find("#define FILTER_DEV " + std::to_string(254u << 20)), std::string::npos);
    EXPECT_NE(src.find("int kd_block_start("), std::string::npos) << "block_io.bpf.h inlined";
    EXPECT_NE(src.find("BPF_PERF_OUTPUT(events);"), std::string::npos);
    EXPECT_EQ(src.find("#include"), std::string::npos);
}

// A cgroup target compares no tgid: the task's cgroup, then its ancestors,
// with the verdict kept per cgroup; a cgroup of the target's name under its
// parent is the target too (a unit's cgroup made anew).
TEST(Biosnoop, ProgramMatchesACgroupInsteadOfProcesses)
{
    if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
        GTEST_SKIP() << "no kernel BTF";
    BiosnoopConfig cfg;
    KernelBtf btf;
    const CgroupMatch cgroup{{"/sys/fs/cgroup/x", 4711, "", 17, "x"}, read_cgroup_layout(btf, "")};
    const std::string src = render_biosnoop_program(cfg, biosnoop_layout(), cgroup);
    EXPECT_NE(src.find("#define TARGET_TGIDS 0\n"), std::string::npos) << src;
    EXPECT_NE(src.find("#define TARGET_TGID_7 4294967295\n#define TARGET_CGROUP_ID 4711\n"), std::string::npos) << src;
    const std::string cc = kdtest::preprocessed(src);
    EXPECT_NE(cc.find("target_cgroup_verdicts"), std::string::npos);
    EXPECT_TRUE(std::regex_search(cc, std::regex(R"(== 4711\))"))) << "the cgroup's id compared";
    EXPECT_TRUE(std::regex_search(cc, std::regex(R"(== 17\))"))) << "its parent's id compared";
    EXPECT_NE(src.find("#define TARGET_CGROUP_NAME_LEN 1\n"), std::string::npos);
    // FNV-1a of "x", as any implementation gives it.
    EXPECT_EQ(cgroup_name_hash("x"), 0xaf63f54c86021707ull);
    EXPECT_NE(src.find("#define TARGET_CGROUP_NAME_HASH 12638214688346347271ULL\n"), std::string::npos) << src;
    cfg.bpf.pids = {1};
    EXPECT_THROW(render_biosnoop_program(cfg, biosnoop_layout(), cgroup), Error) << "processes and a cgroup";
}

TEST(Biosnoop, DiskNamesAndNumbers)
{
    EXPECT_EQ(make_dev(254, 1), (254u << 20) | 1u);
    EXPECT_EQ(disk_name(make_dev(4095, 1048575)), "4095:1048575");  // no such device
    EXPECT_THROW(dev_of_disk("no-such-disk"), Error);
    EXPECT_THROW(dev_of_disk("../../etc"), Error);
    EXPECT_THROW(dev_of_disk(""), Error);
}
