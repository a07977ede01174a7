#include "block/bio_tables.h"

namespace kdelay {

Table bio_columns(bool queue)
{
    Table t;
    t.key = "bio";
    t.columns = {
        Column{"TIME(s)", "time_s", 11}.left().fixed(6),
        Column{"COMM", "comm", 14}.left().cut_at_width().with_gap(1),
        Column{"PID", "pid", 6}.left().with_gap(1),
        Column{"DISK", "disk", 7}.left().with_gap(1),
        Column{"T", "op", 1}.left().with_gap(1),
        Column{"SECTOR", "sector", 10}.left().with_gap(1),
        Column{"BYTES", "bytes", 7}.left().with_gap(1),
        Column{queue ? "QUE(ms)" : "", "queue_ns", 7}.fixed(2, 1e6).with_gap(1),
        Column{"LAT(ms)", "latency_ns", 7}.fixed(2, 1e6).with_gap(1),
    };
    return t;
}

Row bio_row(const BioEvent& e)
{
    return Row{{e.time_s, e.comm, uint64_t{e.pid}, e.disk, std::string(1, e.op), e.sector, uint64_t{e.bytes},
                e.queue_ns, e.device_ns}};
}

Table bio_summary_table(const std::vector<BioSummaryRow>& rows)
{
    Table t;
    t.title = "# Summary per disk and operation";
    t.key = "bio_summary";
    t.shown_empty = true;
    t.columns = {
        Column{"DISK", "disk", 10}.left(),
        Column{"T", "op", 1}.left().with_gap(1),
        Column{"COUNT", "count", 10}.with_gap(1),
        Column{"BYTES", "bytes", 16}.with_commas().with_gap(1),
        Column{"AVG LAT(ms)", "", 12}.fixed(3).with_gap(1),
        Column{"MAX LAT(ms)", "", 12}.fixed(3, 1e6).with_gap(1),
        Column{"", "total_latency_ns"},
        Column{"", "max_latency_ns"},
    };
    for (const auto& r : rows) {
        const double avg_ms = r.count ? r.total_device_ns / 1e6 / static_cast<double>(r.count) : 0.0;
        t.rows.push_back(Row{{r.disk, std::string(1, r.op), r.count, r.bytes, avg_ms, r.max_device_ns,
                              r.total_device_ns, r.max_device_ns}});
    }
    return t;
}

}  // namespace kdelay
