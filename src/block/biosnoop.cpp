#include "block/biosnoop.h"

#include <bcc/BPF.h>
#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <unistd.h>

#include <linux/types.h>

#include "block/bio_tables.h"
#include "block/block_program.h"
#include "block_abi.h"
#include "loader/btf_offsets.h"
#include "loader/pid_namespace.h"
#include "loader/probe_set.h"
#include "loader/session.h"
#include "loader/program_source.h"
#include "core/error.h"
#include "report/format.h"
#include "report/writer.h"
#include "sys/event_wait.h"
#include "sys/pid_map.h"
#include "sys/process.h"

namespace kdelay {
namespace {

constexpr int kPerfPages = 64;  // per CPU, as biosnoop

// Turns perf buffer records into report lines and the summary.
class BioPrinter {
public:
    // learn: the issuers' ids as kdelay's PID namespace sees them, as far
    // as they are known now; none in the kernel's namespace.
    BioPrinter(ReportWriter& writer, bool queue, std::function<PidMap()> learn)
        : writer_(writer), columns_(bio_columns(queue)), learn_(std::move(learn))
    {
        if (learn_)
            ids_ = learn_();
    }

    const Table& columns() const { return columns_; }

    // A new round of events may learn the ids once more.
    void next_round() { learned_this_round_ = false; }

    // A perf buffer's record is 4-byte aligned (its size comes first), so
    // the event is copied out, never read in place (UBSan's finding).
    static void on_event(void* self, void* data, int size)
    {
        if (size < static_cast<int>(sizeof(kd_bio_event)))
            return;
        kd_bio_event e;
        std::memcpy(&e, data, sizeof(e));
        static_cast<BioPrinter*>(self)->print(e);
    }
    static void on_lost(void* self, uint64_t lost) { static_cast<BioPrinter*>(self)->lost_ += lost; }

    uint64_t lost() const { return lost_; }

    std::vector<BioSummaryRow> summary() const
    {
        std::vector<BioSummaryRow> rows;
        for (const auto& [key, row] : summary_)
            rows.push_back(row);
        return rows;
    }

private:
    void print(const kd_bio_event& e)
    {
        if (!first_ts_)
            first_ts_ = e.ts;
        const std::string disk = disk_name(e.dev);
        writer_.row(columns_, bio_row(BioEvent{(e.ts - first_ts_) / 1e9,
                                               std::string(e.comm, strnlen(e.comm, sizeof(e.comm))), local_pid(e.pid), disk,
                                               e.op, e.sector, e.bytes, e.queue_ns, e.device_ns}));
        BioSummaryRow& row = summary_[{disk, e.op}];
        row.disk = disk;
        row.op = e.op;
        row.count++;
        row.bytes += e.bytes;
        row.total_device_ns += e.device_ns;
        row.max_device_ns = std::max<uint64_t>(row.max_device_ns, e.device_ns);
    }

    // A process born after the start (a cgroup's) is learnt when its first
    // I/O shows, at most once a round of polling.
    uint32_t local_pid(uint32_t pid)
    {
        if (learn_ && !ids_.knows_kernel(pid) && !learned_this_round_) {
            ids_ = learn_();
            learned_this_round_ = true;
        }
        return ids_.local(pid);
    }

    ReportWriter& writer_;
    Table columns_;
    std::function<PidMap()> learn_;
    PidMap ids_;
    bool learned_this_round_ = false;
    uint64_t first_ts_ = 0;
    uint64_t lost_ = 0;
    std::map<std::pair<std::string, char>, BioSummaryRow> summary_;
};

}  // namespace

void complete_biosnoop_config(const CommonOptions& common, BiosnoopConfig& cfg)
{
    cfg.bpf = make_bpf_config(common);
    if (!cfg.disk.empty())
        cfg.dev = dev_of_disk(cfg.disk);
}

BlockLayout biosnoop_layout()
{
    KernelBtf btf;
    const auto layout = read_block_layout(btf);
    if (!layout)
        throw Error(Exit::unavailable, std::string("this kernel lacks ") + kBlockLayoutNeeds);
    return *layout;
}

std::string render_biosnoop_program(const BiosnoopConfig& cfg, const BlockLayout& layout,
                                   const std::optional<CgroupMatch>& cgroup)
{
    ConfigHeader c(biosnoop_config_names());
    add_targets(c, cfg.bpf.pids, cgroup);
    c.number("FILTER_DEV", cfg.dev);
    add_block_config(c, layout, 16384);
    return assemble_program({"biosnoop.bpf.c"}, c);
}

int run_biosnoop(const BiosnoopConfig& cfg, ReportWriter& writer)
{
    const BlockLayout layout = biosnoop_layout();
    // In a PID namespace of kdelay's own, -p's PIDs are that namespace's:
    // the program compares the kernel's, and the lines show the local ones,
    // as they do for a cgroup's tasks.
    const std::optional<CgroupMatch> cgroup = match_cgroup(cfg.bpf.cgroup, KernelBtf());
    const std::unique_ptr<NamespacePids> namespace_pids =
        cfg.bpf.print_ebpf ? nullptr : NamespacePids::when_needed(cfg.bpf.pids, cfg.bpf.debug, cgroup);
    BiosnoopConfig kernel_cfg = cfg;
    if (namespace_pids && !cfg.bpf.pids.empty())
        kernel_cfg.bpf.pids = namespace_pids->kernel_tgids();
    const std::string source = render_biosnoop_program(kernel_cfg, layout, cgroup);
    if (cfg.bpf.print_ebpf) {
        std::cout << source;
        return 0;
    }
    BpfSession session(source, cfg.bpf.debug);
    session.attach(load_probe_set("block", block_features(layout)));
    // Signals are taken over only now: until here Ctrl-C ends kdelay at once,
    // even inside a compile or a blocking open, and nothing is left behind.
    EventWait wait;
    BioPrinter printer(writer, cfg.queue, namespace_pids ? namespace_pids->learner() : std::function<PidMap()>());
    ebpf::StatusTuple status = session.bpf().open_perf_buffer(
        "events", &BioPrinter::on_event, &BioPrinter::on_lost, &printer, kPerfPages);
    if (!status.ok())
        throw Error(Exit::oserr, "cannot open the perf buffer: " + status.msg());
    for (pid_t pid : cfg.bpf.pids)
        wait.watch_process(pid);

    writer.rows_begin(printer.columns());
    using Clock = EventWait::Clock;
    const auto end = cfg.duration > 0
                         ? Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double>(cfg.duration))
                         : Clock::time_point::max();
    bool exited = false;
    for (;;) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(end - Clock::now());
        printer.next_round();
        session.bpf().poll_perf_buffer("events", static_cast<int>(std::clamp<int64_t>(left.count(), 0, 100)));
        const auto wake = wait.wait_until(Clock::now());
        exited = wake == EventWait::Wake::target_exited;
        if (exited || wake == EventWait::Wake::interrupted || Clock::now() >= end)
            break;
    }
    // What the kernel sent while the last round was printed, or as the
    // signal came, is still in the buffer.
    session.bpf().poll_perf_buffer("events", 0);
    if (exited)
        writer.note(fmt::format("Process{} {} exited", cfg.bpf.pids.size() > 1 ? "es" : "", fmt::join(cfg.bpf.pids, ", ")));
    writer.table(bio_summary_table(printer.summary()));
    if (printer.lost() > 0)
        writer.warning(with_commas(printer.lost()) +
                       " events were lost (perf buffer full); the lines and summary above are incomplete.");
    if (const uint64_t n = session.maps().per_cpu_sum("bio_lost", 0); n > 0)
        writer.warning(with_commas(n) + " requests were not tracked (too many in flight).");
    return 0;
}

}  // namespace kdelay
