// Trigger mode and syscall events, end to end, against kd_triggers: a USDT
// probe pair and a function around a section of exactly 100 getppid() and
// one nanosleep(); getpid() runs only between sections.
#include <algorithm>
#include <cctype>
#include <regex>
#include <sys/stat.h>

#include "e2e.h"
#include "test_cgroup.h"
#include "hostile_triggers.h"

using namespace kdtest;
using namespace std::chrono_literals;

namespace {

const std::string kTriggers = KD_TRIGGERS_BIN;
const std::string kStorm = KD_STORM_BIN;
const char* const kSyscalls = "[SYSCALL STATISTICS]";

// The stop-start deltas of "# Triggered sample dump" lines, and of skipped ones.
std::vector<uint64_t> deltas(const std::string& out, const std::string& what)
{
    std::vector<uint64_t> found;
    const std::regex re("# " + what + R"(, (?:stop-start )?delta ([0-9,]+) ns)");
    for (std::sregex_iterator it(out.begin(), out.end(), re), end; it != end; ++it)
        found.push_back(number((*it)[1]));
    return found;
}

// Runs kdelay against a running kd_triggers with the given arguments.
Result run_against_triggers(const std::vector<std::string>& kdelay_args,
                            const std::vector<std::string>& app_args = {"0", "30", "30"})
{
    std::vector<std::string> app = {kTriggers};
    app.insert(app.end(), app_args.begin(), app_args.end());
    Process target(app);
    EXPECT_TRUE(target.wait_for_output("ready", 5s));
    std::vector<std::string> argv = {kKdelay, "-p", std::to_string(target.pid())};
    argv.insert(argv.end(), kdelay_args.begin(), kdelay_args.end());
    return run(argv, 60s);
}

// Nanoseconds the thread lost inside a sample to interrupts and to waiting
// for a CPU: they lengthen a section without being part of its work.
uint64_t stolen_ns(const ThreadBlock& t)
{
    uint64_t ns = 0;
    for (const char* section : {"[HARD IRQ STATISTICS]", "[SOFT IRQ STATISTICS]"})
        if (const Row* total = find_row(t, section, "TOTAL:"))
            ns += number(total->at(2));
    if (auto it = t.sections.find("[THREAD READY STATISTICS]"); it != t.sections.end())
        for (const Row& row : it->second)
            if (!row.empty() && std::isdigit(static_cast<unsigned char>(row[0][0])))
                ns += number(row.at(1));
    return ns;
}

// Every sample holds exactly one section: 100 getppid, one nanosleep, no
// getpid; its delta is the section's length: at least the nanosleep it holds
// (and so at least section_ns), and, once time stolen by interrupts and CPU
// waits is taken off, less than that plus the 20 ms gap between sections. An
// emulated guest can take 15 ms of softirqs inside one section.
void expect_exact_sections(const Result& r, size_t samples_wanted, uint64_t section_ns)
{
    ASSERT_EQ(r.status, 0) << r.err;
    auto samples = parse_samples(r.out);
    ASSERT_EQ(samples.size(), samples_wanted) << r.out;
    const auto d = deltas(r.out, "Triggered sample dump");
    ASSERT_EQ(d.size(), samples_wanted) << r.out;
    for (size_t i = 0; i < samples.size(); ++i) {
        ASSERT_EQ(samples[i].size(), 1u) << r.out;
        const ThreadBlock& t = samples[i].begin()->second;
        const Row* getppid = find_row(t, kSyscalls, "getppid");
        const Row* nanosleep = find_row(t, kSyscalls, "nanosleep");
        ASSERT_TRUE(getppid && nanosleep) << r.out;
        EXPECT_EQ(number(getppid->at(2)), 100u);
        EXPECT_EQ(number(nanosleep->at(2)), 1u);
        EXPECT_FALSE(find_row(t, kSyscalls, "getpid")) << "work from outside the section\n" << r.out;
        const uint64_t slept = number(nanosleep->at(3));
        EXPECT_GE(slept, section_ns) << r.out;
        EXPECT_GE(d[i], slept) << r.out;
        const uint64_t stolen = stolen_ns(t);
        EXPECT_LT(d[i] - std::min(stolen, d[i]), slept + 20'000'000) << r.out;
    }
}

}  // namespace

// A gtest: the text report's stacks.
TEST(TriggerE2E, SyscallEventsListEachSlowSyscallWithItsStack)
{
    KD_REQUIRE_BPF();
    Result r = run_against_triggers({"--start-trigger", "u:kdtest:work_start", "--stop-trigger",
                                     "u:kdtest:work_end", "--syscall-events", "10000000"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto at = r.out.find("# SYSCALL EVENTS:");
    ASSERT_NE(at, std::string::npos) << r.out;
    // Only the 30 ms nanosleep is over 10 ms.
    const std::regex row(R"(\n +(\d+) +(\d+) +(\d+) kd_triggers +([0-9,]+)  (\w+)\n)");
    std::smatch m;
    const std::string events = r.out.substr(at);
    ASSERT_TRUE(std::regex_search(events, m, row)) << events;
    EXPECT_EQ(m[5], "nanosleep");
    EXPECT_GE(number(m[4]), 30'000u);  // DELTA (us)
    EXPECT_EQ((number(m[2]) - number(m[1])) / 1000, number(m[4])) << "DELTA is EXIT - ENTRY in us";
    EXPECT_NE(events.find("[kernel]"), std::string::npos) << "kernel frames\n" << events;
    // The syscall's stack, not the tracer's: the first frame is the kernel's
    // syscall path, never kdelay's program or the tracepoint glue.
    for (const char* tracer : {"bpf_prog_", "bpf_trace_run", "__bpf_trace_"})
        EXPECT_EQ(events.find(tracer), std::string::npos) << tracer << " in\n" << events;
    EXPECT_NE(events.find("[kd_triggers]"), std::string::npos) << "user frames\n" << events;
    const std::string rest = m.suffix();
    EXPECT_FALSE(std::regex_search(rest, m, row)) << "only one syscall was over the threshold\n" << events;
}

// A gtest: it counts every getppid event against the count.
TEST(TriggerE2E, SyscallStormLosesNoEvent)
{
    KD_REQUIRE_BPF();
    Result r = run({kKdelay, "--syscall-events", "0", "--stack-trace-size", "0", "--sample-time",
                    "30", "--", kStorm, "0.3"},
                   120s);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.find("dropped"), std::string::npos) << "ring buffer overflowed";
    auto samples = parse_samples(r.out);
    ASSERT_EQ(samples.size(), 1u);
    const Row* getppid = find_row(samples[0].begin()->second, kSyscalls, "getppid");
    ASSERT_TRUE(getppid) << r.out.substr(0, 4000);
    const uint64_t counted = number(getppid->at(2));
    EXPECT_GT(counted, 100'000u);
    uint64_t listed = 0;
    for (size_t at = r.out.find(" getppid\n"); at != std::string::npos; at = r.out.find(" getppid\n", at + 1))
        ++listed;
    EXPECT_EQ(listed, counted) << "every counted getppid is also an event";
}

// A gtest: one run per trigger of the hostile list the fuzz targets share.
TEST(TriggerE2E, HostileTriggersAreRefusedBeforeAnythingIsCompiled)
{
    // -D would show BCC's output if anything were compiled.
    for (const std::string& trigger : kd_hostile_triggers()) {
        for (const char* which : {"--start-trigger", "--stop-trigger"}) {
            Result r = run({kKdelay, "-D", "-p", "1", which, trigger}, 20s);
            EXPECT_EQ(r.status, 78) << trigger;
            EXPECT_TRUE(r.out.empty()) << trigger;
            EXPECT_EQ(r.err.rfind("kdelay: invalid trigger", 0), 0u) << r.err;
            EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        }
    }
}

// A cgroup's USDT trigger is attached to the file its processes run, for
// every process, and the program lets only the cgroup's fire it. Beside the
// cgroup's process runs one of the same file outside it, its sections ten
// times as often: had its probes fired the trigger, the windows would have
// missed the cgroup's sections or caught its gaps (getpid).
// A gtest: a cgroup made for the test, and a workload outside it.
// TAGS kernel logic
TEST(TriggerE2E, CgroupUsdtTriggersFireForItsProcessesOnly)
{
    KD_REQUIRE_BPF();
    const std::string root = cgroup2_root();
    if (root.empty())
        GTEST_SKIP() << "no cgroup2 hierarchy here, and none can be mounted";
    TestCgroup cgroup(root, "kdelay-e2e-trigger-" + std::to_string(getpid()));
    ASSERT_FALSE(cgroup.path().empty()) << "cannot make a cgroup under " << root;
    Process inside({kTriggers, "0", "30", "30", "200"});
    Process outside({kTriggers, "0", "1", "1", "1"});
    ASSERT_TRUE(inside.wait_for_output("ready", 5s));
    ASSERT_TRUE(outside.wait_for_output("ready", 5s));
    ASSERT_TRUE(cgroup.add(inside.pid()));

    Result none = run({kKdelay, "--cgroup", cgroup.path(), "--start-trigger", "u:kdtest:nothing"}, 30s);
    EXPECT_EQ(none.status, 78) << none.err;
    EXPECT_EQ(none.err.rfind("kdelay: no process in " + cgroup.path() + " has usdt:kdtest:nothing (no USDT probe", 0),
              0u)
        << none.err;

    Result r = run({kKdelay, "--cgroup", cgroup.path(), "--start-trigger", "u:kdtest:work_start", "--stop-trigger",
                    "u:kdtest:work_end", "--sample-count", "2"},
                   120s);
    expect_exact_sections(r, 2, 30'000'000);
}

// In a PID namespace of kdelay's own, a USDT trigger is attached with the
// PID given there: perf_event_open reads it in the caller's namespace.
// A gtest: a PID namespace made for the test.
// TAGS kernel logic
TEST(TriggerE2E, UsdtTriggersInAPidNamespaceFrameExactlyTheSection)
{
    KD_REQUIRE_BPF();
    if (access("/usr/bin/unshare", X_OK) != 0)
        GTEST_SKIP() << "needs unshare(1)";
    const std::string script =
        "\"$1\" 0 30 30 >/dev/null & t=$!; "
        "\"$0\" -p $t --start-trigger u:kdtest:work_start --stop-trigger u:kdtest:work_end --sample-count 2; "
        "s=$?; kill $t; exit $s";
    Result r = run({"/usr/bin/unshare", "--pid", "--fork", "--mount-proc", "sh", "-c", script, kKdelay, kTriggers},
                   150s);
    expect_exact_sections(r, 2, 30'000'000);
}

// A gtest: without kprobes it checks the refusal instead, which a case cannot switch to.
// TAGS kernel
TEST(TriggerE2E, KprobeTriggers)
{
    KD_REQUIRE_BPF();
    if (access("/sys/kernel/tracing/kprobe_events", F_OK) != 0) {
        // Without kprobes kdelay must say so plainly; then the test has nothing more to run.
        Result r = run({kKdelay, "-p", "1", "--start-trigger", "k:do_sys_openat2"}, 20s);
        EXPECT_EQ(r.status, 69);
        EXPECT_NE(r.err.find("this kernel has no kprobes (CONFIG_KPROBES is not set)"), std::string::npos)
            << r.err;
        GTEST_SKIP() << "this kernel has no kprobes (CONFIG_KPROBES unset): k/kr triggers cannot fire";
    }
    // Start at the entry of the getpgrp that runs once before each section
    // (after its sys_enter, so neither end of it is counted), stop at the
    // return of the section's nanosleep (before its sys_exit): exactly the
    // section's 100 getppid. Wherever in its loop the target is when kdelay
    // arms, the sample starts at a section's beginning.
    Result r = run_against_triggers({"--start-trigger", "k:__x64_sys_getpgrp", "--stop-trigger",
                                     "kr:__x64_sys_nanosleep", "--sample-count", "2"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("# Start sampling (trigger@"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("# Stop sampling (trigger@"), std::string::npos) << r.out;
    const auto samples = parse_samples(r.out);
    ASSERT_EQ(samples.size(), 2u) << r.out;
    const auto d = deltas(r.out, "Triggered sample dump");
    ASSERT_EQ(d.size(), 2u) << r.out;
    for (size_t i = 0; i < samples.size(); ++i) {
        ASSERT_EQ(samples[i].size(), 1u) << r.out;
        const ThreadBlock& t = samples[i].begin()->second;
        const Row* getppid = find_row(t, kSyscalls, "getppid");
        ASSERT_TRUE(getppid) << r.out;
        EXPECT_EQ(number(getppid->at(2)), 100u) << r.out;
        EXPECT_FALSE(find_row(t, kSyscalls, "nanosleep")) << r.out;
        EXPECT_FALSE(find_row(t, kSyscalls, "getpgrp")) << r.out;
        EXPECT_FALSE(find_row(t, kSyscalls, "getpid")) << "work from outside the section\n" << r.out;
        EXPECT_GE(d[i], 30'000'000u) << "the section's 30 ms nanosleep lies inside\n" << r.out;
    }
}

// A gtest: --list-probes prints text only.
TEST(TriggerE2E, ListProbesShowsTheTargetsUsdtProbes)
{
    KD_REQUIRE_BPF();
    Process target({kTriggers, "0", "30", "30"});
    ASSERT_TRUE(target.wait_for_output("ready", 5s));
    Result r = run({kKdelay, "-p", std::to_string(target.pid()), "--list-probes"}, 20s);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("kdtest:work_start "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("kdtest:work_end "), std::string::npos) << r.out;
}

// On the main before it, --list-probes printed each probe's file as it
// was named: a path with an escape sequence reached root's terminal.
// A gtest: the program copied to a path that holds an escape sequence.
// TAGS logic
TEST(TriggerE2E, ListProbesShowsAHostilePathEscaped)
{
    KD_REQUIRE_BPF();
    const std::string dir = "/tmp/kdelay-e2e-\x1b[31m-" + std::to_string(getpid());
    ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
    const std::string copy = dir + "/kd_triggers";
    ASSERT_EQ(std::system(("cp '" + kTriggers + "' '" + copy + "'").c_str()), 0);
    Process target({copy, "0", "30", "30"});
    ASSERT_TRUE(target.wait_for_output("ready", 5s));
    Result r = run({kKdelay, "-p", std::to_string(target.pid()), "--list-probes"}, 20s);
    unlink(copy.c_str());
    rmdir(dir.c_str());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
    // Seen through the target's root (/proc/PID/root), escaped.
    EXPECT_NE(r.out.find("/tmp/kdelay-e2e-\\x1b[31m-" + std::to_string(getpid()) + "/kd_triggers\n"),
              std::string::npos)
        << r.out;
}

// kd_triggers (0 30 30) sampled between start and stop, twice: each sample
// is its one thread's section, of exactly 100 getppid calls.
static void expect_two_sections_of_a_hundred_getppid(const std::string& pid, const std::string& start,
                                                     const std::string& stop)
{
    SCOPED_TRACE(start);
    Result r = run({kKdelay, "-p", pid, "--start-trigger", start, "--stop-trigger", stop, "--sample-count", "2"}, 120s);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto samples = parse_samples(r.out);
    ASSERT_EQ(samples.size(), 2u) << r.out;
    for (const auto& sample : samples) {
        ASSERT_EQ(sample.size(), 1u) << r.out;
        const Row* getppid = find_row(sample.begin()->second, kSyscalls, "getppid");
        ASSERT_TRUE(getppid) << r.out;
        EXPECT_EQ(number(getppid->at(2)), 100u) << r.out;
    }
}

// A target in a mount namespace of its own (a container): its executable
// and its libc are on a tmpfs mounted there only, at paths that kdelay's
// namespace does not have. Triggers in the executable (USDT, uprobe) and
// in a library named as the target loads it are found in the target's own
// view (/proc/PID/exe, /proc/PID/root).
// A gtest: a mount namespace made for the test.
// TAGS kernel logic
TEST(TriggerE2E, TriggersOfATargetInAMountNamespaceOfItsOwnAttachToItsFiles)
{
    KD_REQUIRE_BPF();
    if (access("/usr/bin/unshare", X_OK) != 0)
        GTEST_SKIP() << "needs unshare(1) for a mount namespace";
    const std::string dir = "/run/kdelay-e2e-mntns-" + std::to_string(getpid());
    ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
    // In its own namespace: a tmpfs over dir, the program and libc copied
    // there, the program run with that libc.
    // app-link: an absolute link there, to be resolved in the target's
    // root. On the main before it, kdelay resolved it in its own (where
    // dir is empty) and found no such object.
    const std::string script =
        "mount -t tmpfs none \"$1\" && cp \"$2\" \"$1/app\" && ln -s \"$1/app\" \"$1/app-link\" && "
        "mkdir \"$1/lib\" && "
        "cp \"$(ldd \"$2\" | sed -n 's|.*=> \\(/[^ ]*libc.so.6\\) .*|\\1|p')\" \"$1/lib/\" && "
        "LD_LIBRARY_PATH=\"$1/lib\" exec \"$1/app\" 0 30 30";
    Process contained({"/usr/bin/unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", dir,
                       kTriggers});
    ASSERT_TRUE(contained.wait_for_output("ready", 5s)) << contained.err();
    const std::string pid = std::to_string(contained.pid());
    ASSERT_NE(access((dir + "/app").c_str(), F_OK), 0) << "the tmpfs is not the target's alone";
    const std::vector<std::pair<std::string, std::string>> triggers = {
        {"u:kdtest:work_start", "u:kdtest:work_end"},
        {"up:kd_work_section", "upr:kd_work_section"},
        {"up:" + dir + "/app-link:kd_work_section", "upr:" + dir + "/app-link:kd_work_section"},
        {"ur:libc.so.6:clock_nanosleep", "u:kdtest:work_end"}};
    for (const auto& [start, stop] : triggers)
        ASSERT_NO_FATAL_FAILURE(expect_two_sections_of_a_hundred_getppid(pid, start, stop));
    contained.signal(SIGKILL);
    contained.wait(5s);
    rmdir(dir.c_str());
}

// A gtest: a program and its libc replaced on disk while it runs (as a package upgrade does, or the program's owner, to steer root's watch): the USDT probes, the library's uprobe and the names of its stacks are those of the files it maps.
// TAGS logic sanitize
TEST(TriggerE2E, TriggersOfAProgramWhoseFilesWereReplacedUnderItAttachToTheFilesItMaps)
{
    KD_REQUIRE_BPF();
    const std::string dir = "/run/kdelay-e2e-replaced-" + std::to_string(getpid());
    ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
    // The program and libc copied to dir, and run from there; then a file
    // with none of their probes or functions renamed over each. The maps
    // then name both "(deleted)", and their paths another file: on the
    // main before it, kdelay found no such probe.
    const std::string script =
        "cp \"$2\" \"$1/app\" && mkdir \"$1/lib\" && "
        "cp \"$(ldd \"$2\" | sed -n 's|.*=> \\(/[^ ]*libc.so.6\\) .*|\\1|p')\" \"$1/lib/\" && "
        "LD_LIBRARY_PATH=\"$1/lib\" exec \"$1/app\" 0 30 30";
    Process target({"/bin/sh", "-c", script, "sh", dir, kTriggers});
    ASSERT_TRUE(target.wait_for_output("ready", 5s)) << target.err();
    for (const std::string file : {"app", "lib/libc.so.6"}) {
        const std::string decoy = dir + "/" + file + ".new";
        ASSERT_EQ(system(("cp /bin/true '" + decoy + "'").c_str()), 0);
        ASSERT_EQ(rename(decoy.c_str(), (dir + "/" + file).c_str()), 0);
    }
    const std::string pid = std::to_string(target.pid());
    const std::vector<std::pair<std::string, std::string>> triggers = {
        {"u:kdtest:work_start", "u:kdtest:work_end"}, {"ur:libc.so.6:clock_nanosleep", "u:kdtest:work_end"}};
    for (const auto& [start, stop] : triggers)
        ASSERT_NO_FATAL_FAILURE(expect_two_sections_of_a_hundred_getppid(pid, start, stop));
    // The slow syscall's stack is named from the files it maps, as its
    // maps name them: main in the program, syscall() in its libc.
    {
        Result r = run({kKdelay, "-p", pid, "--start-trigger", "u:kdtest:work_start", "--stop-trigger",
                        "u:kdtest:work_end", "--syscall-events", "10000000"},
                       120s);
        ASSERT_EQ(r.status, 0) << r.err;
        const auto at = r.out.find("# SYSCALL EVENTS:");
        ASSERT_NE(at, std::string::npos) << r.out;
        const std::string events = r.out.substr(at);
        EXPECT_NE(events.find(" main+0x"), std::string::npos) << events;
        EXPECT_NE(events.find("[app (deleted)]"), std::string::npos) << events;
        EXPECT_NE(events.find(" syscall+0x"), std::string::npos) << events;
        EXPECT_NE(events.find("[libc.so.6 (deleted)]"), std::string::npos) << events;
        EXPECT_EQ(events.find("[unknown]"), std::string::npos) << events;
    }
    // --list-probes names the file the process maps, as its maps do.
    Result listed = run({kKdelay, "-p", pid, "--list-probes"}, 60s);
    EXPECT_EQ(listed.status, 0) << listed.err;
    EXPECT_NE(listed.out.find("kdtest:work_start " + dir + "/app (deleted)"), std::string::npos) << listed.out;
    target.signal(SIGKILL);
    target.wait(5s);
    ASSERT_EQ(system(("rm -rf '" + dir + "'").c_str()), 0);
}
