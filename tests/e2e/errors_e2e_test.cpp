// Bad input and hostile environments: one clear line, a sysexits code, no crash.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "e2e.h"
#include "test_cgroup.h"

using namespace kdtest;
using namespace std::chrono_literals;

namespace {

const uid_t kNobody = 65534;

// Exactly one line on stderr, starting "kdelay: ", and nothing on stdout.
void expect_one_error_line(const Result& r)
{
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(r.err.rfind("kdelay: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace

// A gtest: another user.
TEST(ErrorsE2E, NotRootIs77)
{
    if (geteuid() != 0)
        GTEST_SKIP() << "needs root to drop to another user";
    Result r = run({kKdelay, "-p", "1"}, 10s, kNobody);
    EXPECT_EQ(r.status, 77);
    expect_one_error_line(r);
    EXPECT_NE(r.err.find("root"), std::string::npos);
    // --list-probes too (on the main before it, it read a process's files
    // and printed their paths without root).
    Result listed = run({kKdelay, "-p", std::to_string(getpid()), "--list-probes"}, 10s, kNobody);
    EXPECT_EQ(listed.status, 77) << listed.out << listed.err;
    expect_one_error_line(listed);
}

// The bad-input cases that need nothing but kdelay's arguments are one-line
// ERROR cases in tests/e2e/cases/errors.case.

// A gtest: another user, and a hidden /lib/modules.
TEST(ErrorsE2E, EbpfPrintsTheSourceWithoutRootAndWithoutKernelHeaders)
{
    const uid_t user = geteuid() == 0 ? kNobody : geteuid();
    Result r = run({kKdelay, "--ebpf", "-p", "1"}, 10s, user);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("#define TARGET_TGID_0 1\n"), std::string::npos);
    EXPECT_NE(r.out.find("BTF_TRACEPOINT_PROBE(sched_switch)"), std::string::npos);
    EXPECT_EQ(r.out.find("#include"), std::string::npos) << "no kernel headers in the program";
}

// No kernel headers anywhere (a cloud or custom kernel, a container): on
// x86-64 kdelay compiles against its own tree (bpf/bcc_tree/), with no setup
// step, and leaves nothing behind in /tmp. It also sweeps the tree a killed
// run left there (one whose lock nobody holds, changed over a minute ago).
// A gtest: a hidden /lib/modules.
TEST(ErrorsE2E, NoKernelHeadersAreNeeded)
{
    KD_REQUIRE_BPF();
    struct utsname u {};
    uname(&u);
    if (std::string(u.machine) != "x86_64")
        GTEST_SKIP() << "kdelay brings its own header tree only on x86-64";
    if (access("/usr/bin/unshare", X_OK) != 0)
        GTEST_SKIP() << "needs unshare(1) to hide /lib/modules and /usr/src";
    const std::string script =
        "mount -t tmpfs none /lib/modules && mount -t tmpfs none /usr/src && "
        "killed=$(mktemp -d /tmp/kdelay-headers-XXXXXX) && mkdir $killed/tree && touch $killed/lock && "
        "touch -d '-2 minutes' $killed && "
        "before=$(ls -d /tmp/kdelay-headers-* 2>/dev/null | wc -l); "
        "\"$0\" --sample-time 0.3 -- \"$1\" syscalls 500 1 --now; status=$?; "
        "[ ! -e $killed ] || { echo the tree of a killed run was not swept >&2; exit 98; }; "
        "[ \"$(ls -d /tmp/kdelay-headers-* 2>/dev/null | wc -l)\" -lt \"$before\" ] || "
        "{ echo header tree left behind >&2; exit 99; }; exit $status";
    Result r = run({"/usr/bin/unshare", "-m", "sh", "-c", script, kKdelay, kWorkload}, 60s);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("[SYSCALL STATISTICS]"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" getppid "), std::string::npos) << r.out;
}

// A gtest: a full device as stdout.
TEST(ErrorsE2E, AReportThatCannotBeWrittenIs74)
{
    KD_REQUIRE_BPF();
    Result r = run({"/bin/sh", "-c", kKdelay + " --sample-time 0.1 -- " + kWorkload + " syscalls 10 1 --now > /dev/full"}, 30s);
    EXPECT_EQ(r.status, 74) << r.err;
    EXPECT_NE(r.err.find("kdelay: cannot write the report to stdout"), std::string::npos) << r.err;
}

// A FIFO, a device or a non-ELF file named as the uprobe object: one line,
// exit 78, at once (a FIFO once blocked kdelay in open() for good).
// A gtest: a FIFO, a device and a directory made on the fly.
TEST(ErrorsE2E, AUprobeObjectThatIsNoElfObjectIs78)
{
    KD_REQUIRE_BPF();
    char dir[] = "/tmp/kd_fifo_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string fifo = std::string(dir) + "/fifo";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    Process target({kWorkload, "syscalls", "1", "0"});  // idles until SIGUSR1
    ASSERT_TRUE(target.wait_for_output("ready", 5s));
    for (const auto& [object, why] : std::vector<std::pair<std::string, std::string>>{
             {fifo, "is a FIFO, not an ELF object"},
             {"/dev/zero", "is a device, not an ELF object"},
             {"/etc/hostname", "is not an ELF object"},
             {dir, "is a directory, not an ELF object"}}) {
        for (const char* option : {"--start-trigger", "--stop-trigger"}) {
            Result r = run({kKdelay, "-p", std::to_string(target.pid()), "--sample-time", "0.2", option,
                            "up:" + object + ":x"},
                           20s);
            EXPECT_EQ(r.status, 78) << object << ": " << r.err;
            expect_one_error_line(r);
            EXPECT_NE(r.err.find("uprobe object " + object + " " + why), std::string::npos) << r.err;
        }
    }
    unlink(fifo.c_str());
    rmdir(dir);
}

// With tracefs unmounted, uprobe triggers and record work as usual and BCC
// says nothing on stderr (it once printed uprobe_events errors).
// A gtest: tracefs unmounted in a mount namespace.
TEST(ErrorsE2E, NoTracefsMountedIsNoNoise)
{
    KD_REQUIRE_BPF();
    if (access("/usr/bin/unshare", X_OK) != 0)
        GTEST_SKIP() << "needs unshare(1) for a mount namespace without tracefs";
    Process triggers({KD_TRIGGERS_BIN, "0", "5", "5", "5"});
    Process spdk({KD_SPDK_BIN, "3"});
    ASSERT_TRUE(spdk.wait_for_output("ready", 5s)) << spdk.err();
    const std::string hide = "umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug/tracing 2>/dev/null; ";
    for (const std::string& args :
         {"-p " + std::to_string(triggers.pid()) + " --sample-time 0.2 --start-trigger up:kd_work_section",
          "-p " + std::to_string(triggers.pid()) + " --sample-time 0.2 --start-trigger u:kdtest:work_start",
          // Ctrl-C once it records: a background job of sh starts with SIGINT ignored.
          "record -p " + std::to_string(spdk.pid()) + " -o /dev/null 2>/tmp/kd-rec-$$ & "
          "until grep -qs recording /tmp/kd-rec-$$; do sleep 0.2; done; kill -INT $!; wait $!; "
          "s=$?; cat /tmp/kd-rec-$$ >&2; rm -f /tmp/kd-rec-$$; exit $s"}) {
        Result r = run({"/usr/bin/unshare", "-m", "--propagation", "private", "sh", "-c",
                        hide + kKdelay + " " + args},
                       90s);
        EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
        std::istringstream lines(r.err);
        for (std::string line; std::getline(lines, line);)
            EXPECT_EQ(line.rfind("kdelay: ", 0), 0u) << args << ": BCC's output leaked: " << line;
    }
}

namespace {

// A directory holding a copy of kdelay alone: no kdelay-bpf.so beside it.
class LoneFrontEnd : public ::testing::Test {
protected:
    void SetUp() override
    {
        char tmpl[] = "/tmp/kd-lone-XXXXXX";
        ASSERT_TRUE(mkdtemp(tmpl));
        dir_ = tmpl;
        kdelay_ = dir_ + "/kdelay";
        ASSERT_EQ(run({"/bin/cp", kKdelay, kdelay_}, 10s).status, 0);
        chmod(dir_.c_str(), 0755);
    }
    void TearDown() override { run({"/bin/rm", "-rf", dir_}, 10s); }
    std::string dir_, kdelay_;
};

}  // namespace

// A gtest: a copy of the front end without kdelay-bpf.so.
TEST_F(LoneFrontEnd, ModesThatLoadEbpfNeedKdelayBpfAndSaySo)
{
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"-p", "1"}, {"biosnoop"}, {"record", "-p", "1"}}) {
        std::vector<std::string> argv = {kdelay_};
        argv.insert(argv.end(), args.begin(), args.end());
        Result r = run(argv, 10s);
        EXPECT_EQ(r.status, 72) << args[0];
        expect_one_error_line(r);
        EXPECT_NE(r.err.find("kdelay-bpf.so"), std::string::npos) << r.err;
    }
    // Option errors and --help never need it.
    EXPECT_EQ(run({kdelay_, "--bogus"}, 10s).status, 64);
    EXPECT_EQ(run({kdelay_, "--help"}, 10s).status, 0);
}

// Without /proc, kdelay cannot learn where it is: it says so (72), and never
// loads a kdelay-bpf.so of the working directory.
// A gtest: a copy of the front end, without /proc.
TEST_F(LoneFrontEnd, WithoutProcNoKdelayBpfOfTheWorkingDirectoryIsLoaded)
{
    if (geteuid() != 0 || access("/usr/bin/unshare", X_OK) != 0)
        GTEST_SKIP() << "needs root and unshare(1) for a mount namespace without /proc";
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer itself needs /proc (its stack bounds)";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    GTEST_SKIP() << "AddressSanitizer itself needs /proc (its stack bounds)";
#endif
#endif
    const std::string planted = dir_ + "/kdelay-bpf.so", ran = dir_ + "/planted-ran";
    ASSERT_EQ(run({"/bin/cp", KD_PLANTED_MODULE, planted}, 10s).status, 0);
    unlink(kdelay_.c_str());  // only the planted one there
    setenv("KD_PLANTED_RAN", ran.c_str(), 1);
    // The planted module works: loaded, it leaves its mark.
    Result loaded = run({"/usr/bin/python3", "-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1])", planted}, 30s);
    ASSERT_EQ(loaded.status, 0) << loaded.err;
    ASSERT_EQ(access(ran.c_str(), F_OK), 0) << "the planted module leaves no mark";
    unlink(ran.c_str());
    Result r = run({"/usr/bin/unshare", "-m", "--propagation", "private", "sh", "-c",
                    "umount -l /proc && cd \"$1\" && exec \"$2\" -p 1", "sh", dir_, kKdelay},
                   30s);
    unsetenv("KD_PLANTED_RAN");
    EXPECT_EQ(r.status, 72) << r.err;
    expect_one_error_line(r);
    EXPECT_NE(r.err.find("/proc"), std::string::npos) << r.err;
    EXPECT_NE(access(ran.c_str(), F_OK), 0) << "the working directory's kdelay-bpf.so was loaded";
}

// A gtest: a copy of the front end without kdelay-bpf.so.
TEST_F(LoneFrontEnd, AnnotateRunsWithoutKdelayBpf)
{
    const std::string trace = dir_ + "/t.json", records = dir_ + "/r.txt";
    ASSERT_EQ(run({KD_GEN_TRACE_BIN, "2000", "16", trace, records}, 30s).status, 0);
    Result lone = run({kdelay_, "annotate", "-i", trace, "-b", records}, 30s);
    Result full = run({kKdelay, "annotate", "-i", trace, "-b", records}, 30s);
    ASSERT_EQ(lone.status, 0) << lone.err;
    EXPECT_EQ(std::count(lone.out.begin(), lone.out.end(), '\n'), 2000);
    EXPECT_EQ(lone.out, full.out);
}

// -p with a thread's id, alone or in a list, with record and biosnoop too:
// one line naming the thread's process (its hostile name escaped), exit 64.
// A gtest: the line names a thread id known only at run time.
TEST(ErrorsE2E, AThreadIdForAProcessIsRefusedNamingItsProcess)
{
    if (geteuid() != 0)
        GTEST_SKIP() << "kdelay's target checks come after its root check";
    Process w({KD_NAMES_BIN});
    ASSERT_TRUE(w.wait_for_output("ready", 5s)) << w.err();
    const std::string pid = std::to_string(w.pid());
    std::string tid;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/" + pid + "/task"))
        if (entry.path().filename() != pid)
            tid = entry.path().filename();
    ASSERT_FALSE(tid.empty());
    const std::string line = "kdelay: " + tid + " is a thread of process " + pid +
                             " (\\x1b[31m\\x0a# STALLm): give -p " + pid + "\n";
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"-p", tid}, {"-p", pid + "," + tid}, {"record", "-p", tid}, {"biosnoop", "-p", tid}}) {
        std::vector<std::string> argv = {kKdelay};
        argv.insert(argv.end(), args.begin(), args.end());
        Result r = run(argv, 10s);
        EXPECT_EQ(r.status, 64) << args[1];
        EXPECT_EQ(r.err, line);
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
}
