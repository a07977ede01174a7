// Block I/O end to end: O_DIRECT writes and reads of known sizes to a file on
// the root filesystem's disk, seen by biosnoop and by the kernel-delay report.
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <csignal>
#include <thread>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "e2e.h"
#include "test_cgroup.h"

using namespace kdtest;
using namespace std::chrono_literals;

namespace {

const int kIos = 8;
const uint64_t kBytes = 64 * 1024;

struct BioLine {
    std::string comm;
    uint32_t pid;
    std::string disk;
    std::string op;
    uint64_t bytes;
    double queue_ms;
    double lat_ms;
};

// biosnoop -Q lines: TIME COMM PID DISK T SECTOR BYTES QUE LAT.
std::vector<BioLine> bio_lines(const std::string& out)
{
    static const std::regex line(R"(^[0-9.]+ +(\S+) +(\d+) +(\S+) +([RWFDO]) +\d+ +(\d+) +([0-9.]+) +([0-9.]+)$)");
    std::vector<BioLine> lines;
    std::istringstream in(out);
    std::string l;
    std::smatch m;
    while (std::getline(in, l))
        if (std::regex_match(l, m, line))
            lines.push_back({m[1], static_cast<uint32_t>(std::stoul(m[2])), m[3], m[4],
                             std::stoull(m[5]), std::stod(m[6]), std::stod(m[7])});
    return lines;
}

// Whether the kernel has the block layout kdelay reads, asked of its BTF
// here independently of kdelay: block_rq_issue passes the request alone
// (5.11+) and the request queue knows its disk (5.15+).
bool kernel_has_block_layout()
{
    btf* vmlinux = btf__load_vmlinux_btf();
    if (libbpf_get_error(vmlinux))
        return false;
    bool one_argument = false, queue_disk = false;
    const int tp = btf__find_by_name_kind(vmlinux, "btf_trace_block_rq_issue", BTF_KIND_TYPEDEF);
    const btf_type* ptr = tp > 0 ? btf__type_by_id(vmlinux, btf__resolve_type(vmlinux, tp)) : nullptr;
    if (ptr && btf_is_ptr(ptr)) {
        const btf_type* proto = btf__type_by_id(vmlinux, ptr->type);
        one_argument = proto && btf_is_func_proto(proto) && btf_vlen(proto) == 2;  // the hook's data, rq
    }
    const int q = btf__find_by_name_kind(vmlinux, "request_queue", BTF_KIND_STRUCT);
    if (const btf_type* t = q > 0 ? btf__type_by_id(vmlinux, q) : nullptr) {
        const btf_member* m = btf_members(t);
        for (int i = 0; i < btf_vlen(t); ++i)
            queue_disk |= std::string(btf__name_by_offset(vmlinux, m[i].name_off)) == "disk";
    }
    btf__free(vmlinux);
    return one_argument && queue_disk;
}

const char* const kBlockLacking =
    "this kernel lacks block tracepoints that pass the request alone and a request queue that knows its disk";

// A fresh file on the disk that holds the root filesystem, and that disk's name.
struct DioFile {
    std::string path;
    std::string disk;
    explicit DioFile(const std::string& name = "target")
    {
        path = "/var/tmp/kdelay-e2e-" + std::to_string(getpid()) + "-" + name + ".dio";
        unlink(path.c_str());  // a truncate would add discards
        struct stat st {};
        if (stat("/var/tmp", &st) == 0) {
            char link[64];
            snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
            char target[4096] = {};
            if (readlink(link, target, sizeof(target) - 1) > 0) {
                std::string t = target;
                disk = t.substr(t.rfind('/') + 1);
                // A partition's parent directory is its disk.
                std::string parent = t.substr(0, t.rfind('/'));
                if (access((std::string("/sys/dev/block/") + link + "/partition").c_str(), F_OK) == 0 ||
                    access((std::string(link) + "/partition").c_str(), F_OK) == 0)
                    disk = parent.substr(parent.rfind('/') + 1);
            }
        }
    }
    ~DioFile() { unlink(path.c_str()); }
};

}  // namespace

// A gtest: biosnoop's text rows, matched one by one to the workload's I/O.
// TAGS kernel sanitize
TEST(BlockE2E, BiosnoopShowsEachDirectIoOfTheProcessOnly)
{
    KD_REQUIRE_BPF();
    if (!kernel_has_block_layout()) {  // 5.10: one line saying what is missing
        Result r = run({kKdelay, "biosnoop", "--duration", "1"}, 90s);
        EXPECT_EQ(r.status, 69) << r.err;
        EXPECT_EQ(r.err.rfind(std::string("kdelay: ") + kBlockLacking, 0), 0u) << r.err;
        return;
    }
    DioFile file;
    ASSERT_FALSE(file.disk.empty()) << "cannot find the disk under /var/tmp";
    Process target({kWorkload, "dio", file.path, std::to_string(kIos), "64"});
    ASSERT_TRUE(target.wait_for_output("ready", 5s));
    Process biosnoop({kKdelay, "biosnoop", "-Q", "-p", std::to_string(target.pid()), "-d", file.disk,
                      "--duration", "4"});
    ASSERT_TRUE(biosnoop.wait_for_output("LAT(ms)", kStartTimeout)) << biosnoop.err();
    // Another process doing the same I/O must not show up.
    DioFile other_file("other");
    Result other = run({kWorkload, "dio", other_file.path, "4", "64", "--now"}, 20s);
    ASSERT_EQ(other.status, 0) << other.err;
    target.signal(SIGUSR1);
    ASSERT_TRUE(target.wait_for_output("done", 10s));
    ASSERT_EQ(biosnoop.wait(30s), 0) << biosnoop.err();

    const auto lines = bio_lines(biosnoop.out());
    int reads = 0, writes = 0;
    for (const auto& l : lines) {
        EXPECT_EQ(l.pid, static_cast<uint32_t>(target.pid())) << "-p lets only the target through";
        EXPECT_EQ(l.disk, file.disk);
        if (l.comm != "kd-dio" || (l.op != "R" && l.op != "W"))
            continue;
        EXPECT_EQ(l.bytes, kBytes);
        EXPECT_GT(l.lat_ms, 0.0);
        EXPECT_GE(l.queue_ms, 0.0);
        reads += l.op == "R";
        writes += l.op == "W";
    }
    EXPECT_EQ(writes, kIos) << biosnoop.out();
    EXPECT_EQ(reads, kIos) << biosnoop.out();

    // The summary: one row per disk and operation.
    const std::regex summary_w("\\n" + file.disk + R"( +W +(\d+) +([0-9,]+) +([0-9.]+) +([0-9.]+)\n)");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(biosnoop.out(), m, summary_w)) << biosnoop.out();
    EXPECT_EQ(number(m[1]), static_cast<uint64_t>(kIos));
    EXPECT_EQ(number(m[2]), kIos * kBytes);
    EXPECT_GT(std::stod(m[3]), 0.0);
}

// -p A,B: both processes' I/O, each line under its own pid, a third
// process's not; the run ends when both have exited.
// A gtest: two workloads.
TEST(BlockE2E, BiosnoopTakesSeveralProcesses)
{
    KD_REQUIRE_BPF();
    if (!kernel_has_block_layout())
        GTEST_SKIP() << kBlockLacking;
    DioFile file_a("a"), file_b("b"), file_c("c");
    ASSERT_FALSE(file_a.disk.empty()) << "cannot find the disk under /var/tmp";
    Process a({kWorkload, "dio", file_a.path, "3", "64"});
    Process b({kWorkload, "dio", file_b.path, "5", "64"});
    ASSERT_TRUE(a.wait_for_output("ready", 5s));
    ASSERT_TRUE(b.wait_for_output("ready", 5s));
    Process biosnoop({kKdelay, "biosnoop", "-Q", "-p", std::to_string(a.pid()) + "," + std::to_string(b.pid()), "-d",
                      file_a.disk, "--duration", "30"});
    ASSERT_TRUE(biosnoop.wait_for_output("LAT(ms)", kStartTimeout)) << biosnoop.err();
    Result other = run({kWorkload, "dio", file_c.path, "4", "64", "--now"}, 20s);
    ASSERT_EQ(other.status, 0) << other.err;
    a.signal(SIGUSR1);
    b.signal(SIGUSR1);
    ASSERT_TRUE(a.wait_for_output("done", 10s));
    ASSERT_TRUE(b.wait_for_output("done", 10s));
    a.signal(SIGKILL);
    b.signal(SIGKILL);
    ASSERT_EQ(biosnoop.wait(30s), 0) << biosnoop.err();

    std::map<uint32_t, int> writes;  // by pid
    const auto lines = bio_lines(biosnoop.out());
    ASSERT_FALSE(lines.empty()) << biosnoop.out();
    for (const auto& l : lines) {
        EXPECT_TRUE(l.pid == static_cast<uint32_t>(a.pid()) || l.pid == static_cast<uint32_t>(b.pid())) << l.pid;
        writes[l.pid] += l.comm == "kd-dio" && l.op == "W";
    }
    EXPECT_EQ(writes[static_cast<uint32_t>(a.pid())], 3) << biosnoop.out();
    EXPECT_EQ(writes[static_cast<uint32_t>(b.pid())], 5) << biosnoop.out();
    EXPECT_NE(biosnoop.out().find("Processes " + std::to_string(a.pid()) + ", " + std::to_string(b.pid()) +
                                  " exited"),
              std::string::npos)
        << biosnoop.out();
}

// A gtest: a cgroup made for the test.
// TAGS kernel logic
TEST(BlockE2E, BiosnoopTakesACgroup)
{
    KD_REQUIRE_BPF();
    if (!kernel_has_block_layout())
        GTEST_SKIP() << kBlockLacking;
    const std::string root = cgroup2_root();
    if (root.empty())
        GTEST_SKIP() << "no cgroup2 hierarchy here, and none can be mounted";
    TestCgroup cgroup(root, "kdelay-e2e-bio-" + std::to_string(getpid()));
    ASSERT_FALSE(cgroup.path().empty());
    DioFile file_a("a"), file_c("c");
    ASSERT_FALSE(file_a.disk.empty()) << "cannot find the disk under /var/tmp";
    Process a({kWorkload, "dio", file_a.path, "3", "64"});
    ASSERT_TRUE(a.wait_for_output("ready", 5s));
    ASSERT_TRUE(cgroup.add(a.pid()));
    Process biosnoop({kKdelay, "biosnoop", "-Q", "--cgroup", cgroup.path(), "-d", file_a.disk, "--duration", "30"});
    ASSERT_TRUE(biosnoop.wait_for_output("LAT(ms)", kStartTimeout)) << biosnoop.err();
    Result other = run({kWorkload, "dio", file_c.path, "4", "64", "--now"}, 20s);
    ASSERT_EQ(other.status, 0) << other.err;
    a.signal(SIGUSR1);
    ASSERT_TRUE(a.wait_for_output("done", 10s));
    biosnoop.signal(SIGINT);
    ASSERT_EQ(biosnoop.wait(30s), 0) << biosnoop.err();

    int writes = 0;
    const auto lines = bio_lines(biosnoop.out());
    ASSERT_FALSE(lines.empty()) << biosnoop.out();
    for (const auto& l : lines) {
        EXPECT_EQ(l.pid, static_cast<uint32_t>(a.pid())) << "only the cgroup's I/O: " << l.comm;
        writes += l.comm == "kd-dio" && l.op == "W";
    }
    EXPECT_EQ(writes, 3) << biosnoop.out();
}

// biosnoop in a PID namespace of its own: -p takes that namespace's PID,
// a cgroup's tasks are learnt as they run, and each line shows the PID
// there.
// A gtest: a PID namespace made for the test.
// TAGS kernel logic
TEST(BlockE2E, BiosnoopInAPidNamespaceTakesAndShowsItsPids)
{
    KD_REQUIRE_BPF();
    if (!kernel_has_block_layout())
        GTEST_SKIP() << kBlockLacking;
    if (access("/usr/bin/unshare", X_OK) != 0)
        GTEST_SKIP() << "needs unshare(1)";
    const std::string root = cgroup2_root();
    std::optional<TestCgroup> cgroup;
    if (!root.empty())
        cgroup.emplace(root, "kdelay-e2e-bio-pidns-" + std::to_string(getpid()));
    // Inside: the workload (its ticker runs while it waits, so its kernel
    // PID is learnt), biosnoop on its PID or cgroup there, the go once
    // biosnoop prints its header; biosnoop ends when the workload, done, is
    // ended.
    std::vector<std::pair<std::string, std::string>> forms = {{"-p", ""}};
    if (cgroup && !cgroup->path().empty())
        forms.push_back({"--cgroup", "echo $w >\"$5/cgroup.procs\"; "});
    for (const auto& [form, join] : forms) {
        SCOPED_TRACE(form);
        DioFile file;
        ASSERT_FALSE(file.disk.empty()) << "cannot find the disk under /var/tmp";
        const std::string out = "/tmp/kdelay-e2e-bio-pidns-" + std::to_string(getpid()) + ".txt";
        const std::string target = form == "-p" ? "-p $w" : "--cgroup \"$5\"";
        const std::string script =
            "KD_TICK=1 \"$1\" dio \"$3\" " + std::to_string(kIos) + " 64 >\"$2.w\" & w=$!; echo \"workload $w\"; " +
            join + "\"$0\" biosnoop -Q " + target + " -d \"$4\" --duration 120 >\"$2\" 2>&1 & k=$!; " +
            "i=0; until grep -q 'LAT(ms)' \"$2\"; do i=$((i+1)); [ $i -lt 900 ] || break; sleep 0.1; done; "
            "kill -USR1 $w; "
            "i=0; until grep -q done \"$2.w\"; do i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.1; done; "
            "kill $w; " +
            (form == "-p" ? "" : "sleep 1; kill $k; ") + "wait $k; echo \"kdelay $?\"; cat \"$2\"; rm -f \"$2.w\"";
        Result r = run({"/usr/bin/unshare", "--pid", "--fork", "--mount-proc", "sh", "-c", script, kKdelay, kWorkload,
                        out, file.path, file.disk, cgroup ? cgroup->path() : ""},
                       200s);
        unlink(out.c_str());
        ASSERT_EQ(r.status, 0) << r.err;
        ASSERT_NE(r.out.find("kdelay 0\n"), std::string::npos) << r.out;
        const uint32_t local_pid = static_cast<uint32_t>(std::stoul(r.out.substr(r.out.find("workload ") + 9)));
        EXPECT_LT(local_pid, 100u) << "a PID of the new namespace";
        int reads = 0, writes = 0;
        const auto lines = bio_lines(r.out);
        ASSERT_FALSE(lines.empty()) << r.out;
        for (const auto& l : lines) {
            EXPECT_EQ(l.pid, local_pid) << "the issuer under its PID in the namespace: " << l.comm;
            reads += l.comm == "kd-dio" && l.op == "R";
            writes += l.comm == "kd-dio" && l.op == "W";
        }
        EXPECT_EQ(writes, kIos) << r.out;
        EXPECT_EQ(reads, kIos) << r.out;
    }
}

// A gtest: the text report's block I/O rows, matched to the workload's I/O.
// TAGS kernel
TEST(BlockE2E, DelayReportAttributesBlockIoToTheIssuingThread)
{
    KD_REQUIRE_BPF();
    DioFile file;
    Process target({kWorkload, "dio", file.path, std::to_string(kIos), "64"});
    ASSERT_TRUE(target.wait_for_output("ready", 5s));
    Process kdelay({kKdelay, "-p", std::to_string(target.pid()), "--sample-time", "2"});
    ASSERT_TRUE(kdelay.wait_for_output("# Start sampling", kStartTimeout)) << kdelay.err();
    target.signal(SIGUSR1);
    ASSERT_TRUE(target.wait_for_output("done", 10s));
    const uint32_t tid = workload_tid(target.out(), "kd-dio");
    ASSERT_EQ(kdelay.wait(20s), 0) << kdelay.err();

    auto samples = parse_samples(kdelay.out());
    ASSERT_EQ(samples.size(), 1u);
    ASSERT_TRUE(samples[0].count(tid)) << kdelay.out();
    const char* section = "[BLOCK I/O STATISTICS]";
    if (!kernel_has_block_layout()) {  // 5.10: the rest of the report, and a note
        EXPECT_NE(kdelay.out().find(std::string("# No BLOCK I/O STATISTICS: ") + kBlockLacking), std::string::npos)
            << kdelay.out();
        EXPECT_EQ(kdelay.out().find(section), std::string::npos) << kdelay.out();
        EXPECT_TRUE(find_row(samples[0].at(tid), "[SYSCALL STATISTICS]", "pwrite64")) << kdelay.out();
        return;
    }
    const auto& rows = samples[0].at(tid).sections[section];
    uint64_t read_count = 0, read_bytes = 0, write_count = 0, write_bytes = 0;
    for (const Row& r : rows) {  // DISK T COUNT BYTES TOTAL MAX
        ASSERT_EQ(r.size(), 6u);
        EXPECT_EQ(r[0], file.disk);
        if (r[1] == "R")
            read_count += number(r[2]), read_bytes += number(r[3]);
        if (r[1] == "W")
            write_count += number(r[2]), write_bytes += number(r[3]);
        EXPECT_GT(number(r[4]), 0u) << "latency";
    }
    EXPECT_EQ(write_count, static_cast<uint64_t>(kIos)) << kdelay.out() << kdelay.err();
    EXPECT_EQ(write_bytes, kIos * kBytes);
    EXPECT_EQ(read_count, static_cast<uint64_t>(kIos)) << kdelay.err();
    EXPECT_EQ(read_bytes, kIos * kBytes);
    // The main thread only waited: none of the I/O is its.
    const auto main = samples[0].find(static_cast<uint32_t>(target.pid()));
    if (main != samples[0].end()) {
        EXPECT_FALSE(main->second.sections.count(section)) << kdelay.out();
    }
}

// A gtest: biosnoop's line names what the machine has, which differs from one machine to another.
TEST(BlockE2E, BiosnoopBadDiskIsAUsageError)
{
    if (geteuid() != 0)
        GTEST_SKIP() << "the root check comes first";
    Result r = run({kKdelay, "biosnoop", "-d", "nosuchdisk0"}, 10s);
    EXPECT_EQ(r.status, 64);
    EXPECT_NE(r.err.find("no disk named 'nosuchdisk0'"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// A gtest: biosnoop prints text only, no JSON start marker to wait for.
TEST(BlockE2E, BiosnoopCtrlCEndsWithTheSummary)
{
    KD_REQUIRE_BPF();
    Process bio({kKdelay, "biosnoop"});
    ASSERT_TRUE(bio.wait_for_output("LAT(ms)", kStartTimeout)) << bio.err();
    std::this_thread::sleep_for(300ms);
    bio.signal(SIGINT);
    ASSERT_EQ(bio.wait(10s), 0) << bio.err();
    EXPECT_NE(bio.out().find("# Summary per disk and operation"), std::string::npos) << bio.out();
}

// --timeline in a sample: each direct read and write of kd-dio is a slice
// of its thread's block I/O track, named by its operation, size and disk,
// and it lasts as long as the request was in flight.
// A gtest: it decodes the Perfetto trace kdelay wrote.
// TAGS kernel logic
TEST(BlockE2E, ATimelineHasEachRequestOnItsThreadsBlockTrack)
{
    KD_REQUIRE_BPF();
    if (!kernel_has_block_layout())
        GTEST_SKIP() << kBlockLacking;
    DioFile file;
    char dir[] = "/tmp/kdelay-timeline-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string trace = std::string(dir) + "/dio.pftrace";
    Process target({kWorkload, "dio", file.path, std::to_string(kIos), "64"});
    ASSERT_TRUE(target.wait_for_output("ready", 5s));
    Process kdelay({kKdelay, "-p", std::to_string(target.pid()), "--sample-time", "2", "--timeline", trace});
    ASSERT_TRUE(kdelay.wait_for_output("# Start sampling", kStartTimeout)) << kdelay.err();
    target.signal(SIGUSR1);
    ASSERT_TRUE(target.wait_for_output("done", 10s));
    const uint32_t tid = workload_tid(target.out(), "kd-dio");
    ASSERT_EQ(kdelay.wait(20s), 0) << kdelay.err();
    const Result check = run({"/usr/bin/python3", KD_TIMELINE_CHECK, KD_PERFETTO_PROTO, trace}, 30s);
    ASSERT_EQ(check.status, 0) << check.out << check.err;
    const nlohmann::json c = nlohmann::json::parse(check.out);
    uint64_t thread = 0;
    for (const auto& t : c["tracks"])
        if (t["tid"] == tid)
            thread = t["uuid"];
    ASSERT_NE(thread, 0u) << check.out;
    const std::string size = std::to_string(kBytes) + " B on " + file.disk;
    int reads = 0, writes = 0;
    for (const auto& t : c["tracks"]) {
        if (t["parent"] != thread || t["name"].get<std::string>().rfind("block I/O", 0) != 0)
            continue;
        for (const auto& s : t["slices"]) {
            reads += s["name"] == "R " + size;
            writes += s["name"] == "W " + size;
            EXPECT_GT(s["end_ns"].get<uint64_t>(), s["start_ns"].get<uint64_t>()) << s.dump();
        }
    }
    EXPECT_EQ(reads, kIos) << check.out;
    EXPECT_EQ(writes, kIos) << check.out;
    unlink(trace.c_str());
    rmdir(dir);
}
