// Targets other than one PID: a cgroup (--cgroup, --unit), with its
// processes' exact syscall counts, a child born in the window, and nothing
// of the processes outside it.
#include <csignal>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <sys/stat.h>

#include "e2e.h"
#include "test_cgroup.h"

using namespace kdtest;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

// A sample's syscall counts by tid and name, and each thread's process.
struct Counts {
    std::map<uint32_t, std::map<std::string, uint64_t>> calls;
    std::map<uint32_t, uint32_t> pid_of;
    std::vector<uint32_t> pids_in_order;  // as the threads come
    uint64_t skipped = 0;  // probe runs the kernel skipped
};

Counts sample_counts(const std::string& out)
{
    Counts c;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        const json l = json::parse(line);
        if (l["type"] != "sample")
            continue;
        c.skipped += l["probe_runs_skipped"].get<uint64_t>();
        for (const auto& t : l["threads"]) {
            const uint32_t tid = t["tid"], pid = t["pid"];
            c.pid_of[tid] = pid;
            if (c.pids_in_order.empty() || c.pids_in_order.back() != pid)
                c.pids_in_order.push_back(pid);
            for (const auto& s : t["syscalls"])
                c.calls[tid][s["name"]] = s["count"];
        }
    }
    return c;
}

uint64_t calls(const Counts& c, uint32_t tid, const std::string& name)
{
    const auto t = c.calls.find(tid);
    if (t == c.calls.end())
        return 0;
    const auto n = t->second.find(name);
    return n == t->second.end() ? 0 : n->second;
}

std::string unique_name(const std::string& what) { return "kdelay-e2e-" + what + "-" + std::to_string(getpid()); }

// Runs kdelay on target_args beside three workloads: a in the cgroup
// (1000 getppid, 20 nanosleep), b below it (600 getppid, then a child born
// in the window makes 300), and an outsider (400 getppid) that must not
// show. Checks each count.
void expect_cgroup_report(const std::vector<std::string>& target_args, const TestCgroup& cgroup,
                          const TestCgroup& below)
{
    Process a({kWorkload, "syscalls", "1000", "20"});
    Process b({kWorkload, "fork", "600", "300"});
    Process outsider({kWorkload, "syscalls", "400", "4"});
    for (Process* p : {&a, &b, &outsider})
        ASSERT_TRUE(p->wait_for_output("ready", 5s));
    ASSERT_TRUE(cgroup.add(a.pid()));
    ASSERT_TRUE(below.add(b.pid()));

    std::vector<std::string> cmd{kKdelay};
    cmd.insert(cmd.end(), target_args.begin(), target_args.end());
    for (const char* arg : {"--sample-time", "2", "--budget", "--format", "json"})
        cmd.push_back(arg);
    Process kdelay(cmd);
    ASSERT_TRUE(kdelay.wait_for_output("\"marker\":\"start\"", kStartTimeout)) << kdelay.err();
    for (Process* p : {&a, &b, &outsider})
        p->signal(SIGUSR1);
    for (Process* p : {&a, &b, &outsider})
        ASSERT_TRUE(p->wait_for_output("done", 10s));
    ASSERT_EQ(kdelay.wait(20s), 0) << kdelay.err();

    const uint32_t tid_a = workload_tid(a.out(), "kd-counter"), tid_b = workload_tid(b.out(), "kd-counter");
    const uint32_t child = workload_tid(b.out(), "kd-child"), tid_out = workload_tid(outsider.out(), "kd-counter");
    ASSERT_NE(child, 0u) << b.out();
    const Counts c = sample_counts(kdelay.out());
    KD_EXPECT_COUNT(calls(c, tid_a, "getppid"), 1000u, c.skipped);
    KD_EXPECT_COUNT(calls(c, tid_a, "nanosleep"), 20u, c.skipped);
    // a process in a cgroup below the target's
    KD_EXPECT_COUNT(calls(c, tid_b, "getppid"), 600u, c.skipped);
    // a child born in the window, counted from its birth
    KD_EXPECT_COUNT(calls(c, child, "getppid"), 300u, c.skipped);
    EXPECT_EQ(c.pid_of.count(child) ? c.pid_of.at(child) : 0, child) << "the child is a process of its own";
    EXPECT_EQ(c.pid_of.count(tid_out), 0u) << "a process outside the cgroup";
    for (const auto& [tid, pid] : c.pid_of)
        EXPECT_TRUE(pid == static_cast<uint32_t>(a.pid()) || pid == static_cast<uint32_t>(b.pid()) || pid == child)
            << "thread " << tid << " of process " << pid << " is not in the cgroup";
    EXPECT_TRUE(std::is_sorted(c.pids_in_order.begin(), c.pids_in_order.end()) &&
                std::set<uint32_t>(c.pids_in_order.begin(), c.pids_in_order.end()).size() == c.pids_in_order.size())
        << "threads grouped by process, by pid";
}

}  // namespace

// A gtest: a cgroup made for the test.
// TAGS kernel
TEST(TargetE2E, CgroupCountsEveryProcessInItOrBelowAndAChildBornInTheWindow)
{
    KD_REQUIRE_BPF();
    const std::string root = cgroup2_root();
    if (root.empty())
        GTEST_SKIP() << "no cgroup2 hierarchy here, and none can be mounted";
    TestCgroup cgroup(root, unique_name("cgroup"));
    ASSERT_FALSE(cgroup.path().empty()) << "cannot make a cgroup under " << root;
    TestCgroup below(cgroup.path(), "below");
    ASSERT_FALSE(below.path().empty());

    // Empty, it is refused before anything is compiled.
    Result empty = run({kKdelay, "--cgroup", cgroup.path(), "--sample-time", "0.1"}, 30s);
    EXPECT_EQ(empty.status, 69) << empty.err;
    EXPECT_EQ(empty.err, "kdelay: --cgroup: " + cgroup.path() + " holds no process, in it or below it\n");

    expect_cgroup_report({"--cgroup", cgroup.path()}, cgroup, below);
}

// A systemd unit is found by its cgroup's name, as systemd lays it out.
// A gtest: a cgroup named as a unit.
// TAGS kernel logic
TEST(TargetE2E, UnitIsTheCgroupNamedAfterIt)
{
    KD_REQUIRE_BPF();
    const std::string root = cgroup2_root();
    if (root != "/sys/fs/cgroup" && root != "/sys/fs/cgroup/unified")
        GTEST_SKIP() << "cgroup2 is not where systemd puts it";
    TestCgroup slice(root, unique_name("unit") + ".slice");
    ASSERT_FALSE(slice.path().empty());
    TestCgroup unit(slice.path(), unique_name("unit") + ".service");
    ASSERT_FALSE(unit.path().empty());
    TestCgroup below(unit.path(), "below");
    ASSERT_FALSE(below.path().empty());
    expect_cgroup_report({"--unit", unique_name("unit")}, unit, below);
}

// Where the machine has cgroup v1 controllers, a controller's hierarchy
// serves as well.
// A gtest: a cgroup v1 hierarchy mounted for the test.
TEST(TargetE2E, CgroupOfAV1ControllersHierarchy)
{
    KD_REQUIRE_BPF();
    struct stat st {};
    if (stat("/sys/fs/cgroup/pids/tasks", &st) != 0)
        GTEST_SKIP() << "no cgroup v1 pids hierarchy at /sys/fs/cgroup/pids";
    TestCgroup cgroup("/sys/fs/cgroup/pids", unique_name("v1"));
    ASSERT_FALSE(cgroup.path().empty());
    TestCgroup below(cgroup.path(), "below");
    ASSERT_FALSE(below.path().empty());
    expect_cgroup_report({"--cgroup", cgroup.path()}, cgroup, below);
}

namespace {

// The JSON lines of output that has other lines too.
std::string json_lines(const std::string& out)
{
    std::string json_part;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] == '{')
            json_part += line + "\n";
    return json_part;
}

// Inside a new PID namespace: the workload (1000 getppid, 20 nanosleep; its
// ticker runs while it waits), `join` run with its PID in $w, kdelay on
// `target` there ($3: cgroup), the go once kdelay samples. The report must
// name the workload's threads and process by their ids there, with exact
// counts.
void expect_ids_of_the_namespace(const std::string& join, const std::string& target, const std::string& cgroup)
{
    const std::string out = "/tmp/kdelay-e2e-pidns-" + std::to_string(getpid()) + ".json";
    const std::string script =
        "KD_TICK=1 \"$1\" syscalls 1000 20 & w=$!; echo \"workload $w\"; " + join + "\"$0\" " + target +
        " --sample-time 3 --budget --format json >\"$2\" 2>&1 & k=$!; "
        "i=0; until grep -q '\"marker\":\"start\"' \"$2\"; do i=$((i+1)); [ $i -lt 900 ] || break; sleep 0.1; done; "
        "kill -USR1 $w; wait $k; echo \"kdelay $?\"; kill $w; cat \"$2\"";
    Result r = run({"/usr/bin/unshare", "--pid", "--fork", "--mount-proc", "sh", "-c", script, kKdelay, kWorkload, out,
                    cgroup},
                   150s);
    unlink(out.c_str());
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_NE(r.out.find("kdelay 0\n"), std::string::npos) << r.out;
    const uint32_t local_pid = static_cast<uint32_t>(std::stoul(r.out.substr(r.out.find("workload ") + 9)));
    const uint32_t local_tid = workload_tid(r.out, "kd-counter");
    EXPECT_LT(local_pid, 100u) << "a PID of the new namespace";
    const Counts c = sample_counts(json_lines(r.out));
    EXPECT_EQ(calls(c, local_tid, "getppid"), 1000u) << "the thread under its id in the namespace: " << r.out;
    EXPECT_EQ(calls(c, local_tid, "nanosleep"), 20u);
    EXPECT_EQ(c.pids_in_order, std::vector<uint32_t>{local_pid}) << "the process as the user sees it: " << r.out;
    for (const auto& [tid, pid] : c.pid_of)
        EXPECT_EQ(pid, local_pid) << "thread " << tid << ": " << r.out;
}

}  // namespace

// kdelay in a PID namespace of its own (a container without the host's
// PIDs): -p takes that namespace's PID, the program compares the kernel's,
// and the report shows the ids the user sees, with exact counts.
// A gtest: a PID namespace made for the test.
// TAGS kernel
TEST(TargetE2E, PidOfAPidNamespaceIsTranslatedBothWays)
{
    KD_REQUIRE_BPF();
    if (access("/usr/bin/unshare", X_OK) != 0)
        GTEST_SKIP() << "needs unshare(1)";
    expect_ids_of_the_namespace("", "-p $w", "");
}

// A target in kdelay's PID namespace that is idle all along (a daemon in a
// long poll): the task iterator reads its kernel id at once, where waiting
// for it to run once refused it after 3 s (exit 69). It is then in the
// report, asleep all window in its syscall, under its id there.
// A gtest: a PID namespace made for the test.
// TAGS kernel logic
TEST(TargetE2E, AnIdleProcessOfAPidNamespaceIsTracedAtOnce)
{
    KD_REQUIRE_BPF();
    if (access("/usr/bin/unshare", X_OK) != 0)
        GTEST_SKIP() << "needs unshare(1)";
    const std::string script = "sleep 600 & w=$!; sleep 0.2; echo \"target $w\"; "
                               "\"$0\" -p $w --sample-time 0.5 --budget --format json; echo \"kdelay $?\"; kill $w";
    Result r = run({"/usr/bin/unshare", "--pid", "--fork", "--mount-proc", "sh", "-c", script, kKdelay}, 150s);
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_NE(r.out.find("kdelay 0\n"), std::string::npos) << r.out << r.err;
    const uint32_t local = static_cast<uint32_t>(std::stoul(r.out.substr(r.out.find("target ") + 7)));
    bool seen = false;
    std::istringstream lines(json_lines(r.out));
    for (std::string line; std::getline(lines, line);)
        if (const json j = json::parse(line); j["type"] == "sample")
            for (const json& t : j["threads"]) {
                seen = true;
                EXPECT_EQ(t["tid"], local) << t.dump();
                EXPECT_EQ(t["budget"]["source"], "iterator") << t.dump();
                EXPECT_EQ(t["budget"]["blocked_ns"], t["budget"]["window_ns"]) << t.dump();
            }
    EXPECT_TRUE(seen) << r.out;
}

// A cgroup from inside a PID namespace: matched by its id, its tasks' ids
// learnt as they run, so the report shows the ids the user sees there.
// A gtest: a PID namespace and a cgroup made for the test.
// TAGS kernel logic
TEST(TargetE2E, CgroupInAPidNamespaceShowsTheIdsThere)
{
    KD_REQUIRE_BPF();
    if (access("/usr/bin/unshare", X_OK) != 0)
        GTEST_SKIP() << "needs unshare(1)";
    const std::string root = cgroup2_root();
    if (root.empty())
        GTEST_SKIP() << "no cgroup2 hierarchy here, and none can be mounted";
    TestCgroup cgroup(root, unique_name("pidns"));
    ASSERT_FALSE(cgroup.path().empty()) << "cannot make a cgroup under " << root;
    expect_ids_of_the_namespace("echo $w >\"$3/cgroup.procs\"; ", "--cgroup \"$3\"", cgroup.path());
}

// A command kdelay starts in a PID namespace of its own: held at the door,
// it runs once for the probe to learn its kernel id, then is traced from
// its first instruction, and shown with the id it has there.
// A gtest: a PID namespace made for the test.
// TAGS kernel logic
TEST(TargetE2E, CommandInAPidNamespaceIsTracedUnderItsIdThere)
{
    KD_REQUIRE_BPF();
    if (access("/usr/bin/unshare", X_OK) != 0)
        GTEST_SKIP() << "needs unshare(1)";
    Result r = run({"/usr/bin/unshare", "--pid", "--fork", "--mount-proc", kKdelay, "--sample-time", "20",
                    "--format", "json", "--", kWorkload, "syscalls", "500", "3", "--now"},
                   150s);
    ASSERT_EQ(r.status, 0) << r.err;
    const uint32_t local_tid = workload_tid(r.out, "kd-counter");
    ASSERT_NE(local_tid, 0u) << r.out;
    EXPECT_LT(local_tid, 100u) << "a thread id of the new namespace";
    const Counts c = sample_counts(json_lines(r.out));
    EXPECT_EQ(calls(c, local_tid, "getppid"), 500u) << r.out;
    EXPECT_EQ(calls(c, local_tid, "nanosleep"), 3u) << r.out;
    ASSERT_EQ(c.pids_in_order.size(), 1u) << r.out;
    EXPECT_LT(c.pids_in_order[0], 100u) << "the command under its PID there";
}

