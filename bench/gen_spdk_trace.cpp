// gen_spdk_trace [--owners] ENTRIES LIFETIMES TRACE.json RECORDS.txt: writes
// a synthetic `spdk_trace -j` file (compact, one line, like the real one) of
// ENTRIES RDMA request entries spread over LIFETIMES qpair lifetimes, and
// the matching `kdelay record` lines (add, ctrlr add, remove per lifetime, in
// arrival order). Pointers are reused, so lookups must pick the right
// lifetime, not just the right pointer.
//
// Two schema flavours, as annotate reads both: by default each entry names
// its poller ("poller": "r01", SPDK before 26.05); with --owners the document
// has an "owners" table and each entry an "owner" id (SPDK 26.05 and later).
#include <cinttypes>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char** argv)
{
    const bool owners = argc > 1 && std::strcmp(argv[1], "--owners") == 0;
    argv += owners;
    argc -= owners;
    if (argc != 5) {
        std::fprintf(stderr, "usage: gen_spdk_trace [--owners] ENTRIES LIFETIMES TRACE.json RECORDS.txt\n");
        return 64;
    }
    const uint64_t entries = std::strtoull(argv[1], nullptr, 10);
    const uint64_t lifetimes = std::max<uint64_t>(1, std::strtoull(argv[2], nullptr, 10));
    std::FILE* trace = std::fopen(argv[3], "w");
    std::FILE* records = std::fopen(argv[4], "w");
    if (!trace || !records)
        return 73;
    static char buf1[1 << 20], buf2[1 << 20];
    std::setvbuf(trace, buf1, _IOFBF, sizeof(buf1));
    std::setvbuf(records, buf2, _IOFBF, sizeof(buf2));

    const uint64_t base = 1000000000, step = 700;  // ticks between entries
    const uint64_t span = entries * step / lifetimes + 1;  // ticks per lifetime
    const uint64_t pointers = lifetimes / 4 + 1;           // each pointer reused ~4 times
    auto ptr = [&](uint64_t l) { return UINT64_C(0x7f0000001000) + (l % pointers) * 0x2000; };

    std::fprintf(records, "Attaching 3 probes...\n");
    for (uint64_t l = 0; l < lifetimes; ++l) {
        const uint64_t begin = base + l * span, end = begin + span - 1;
        std::fprintf(records, "nvmf_poll_group_add_qpair: tsc=0x%" PRIx64 ", qpair=0x%" PRIx64 ", thread=0x%" PRIx64 "\n",
                     begin, ptr(l), l % 4 + 1);
        std::fprintf(records,
                     "nvmf_ctrlr_add_qpair: tsc=0x%" PRIx64 ", qpair=0x%" PRIx64 ", qid=0x%" PRIx64
                     ", subnqn='nqn.2016-06.io.spdk:cnode%" PRIu64
                     "', hostnqn='nqn.2014-08.org.nvmexpress:uuid:4c4c4544-0034-5310-8057-b1c04f4b4a32'\n",
                     begin + 1, ptr(l), l % 64, l % 8);
        std::fprintf(records, "nvmf_poll_group_remove_qpair: tsc=0x%" PRIx64 ", qpair=0x%" PRIx64 ", thread=0x%" PRIx64 "\n",
                     end, ptr(l), l % 4 + 1);
    }

    std::fprintf(trace,
                 "{\"tsc_rate\":2300000000,\"tpoints\":["
                 "{\"name\":\"RDMA_REQ_NEW\",\"id\":352,\"new_object\":true,\"args\":[{\"name\":\"qpair\",\"type\":1,\"size\":8},{\"name\":\"qd\",\"type\":0,\"size\":4}]},"
                 "{\"name\":\"RDMA_REQ_EXECUTING\",\"id\":355,\"new_object\":false,\"args\":[{\"name\":\"qpair\",\"type\":1,\"size\":8}]},"
                 "{\"name\":\"RDMA_REQ_COMPLETED\",\"id\":363,\"new_object\":false,\"args\":[{\"name\":\"qpair\",\"type\":1,\"size\":8},{\"name\":\"qd\",\"type\":0,\"size\":4}]},"
                 "{\"name\":\"BDEV_IO_DONE\",\"id\":33,\"new_object\":false,\"args\":[{\"name\":\"ctx\",\"type\":1,\"size\":8},{\"name\":\"status\",\"type\":0,\"size\":4}]}"
                 "],%s\"entries\":[",
                 owners ? "\"owners\":{\"2\":\"nvmf_tgt_poll_group_000\",\"3\":\"nvmf_tgt_poll_group_001\"},"
                        : "");
    // Who ran the entry: a poller's name, or an owner's id.
    char who[48];
    auto owner_of = [&](uint64_t lcore) {
        if (owners)
            std::snprintf(who, sizeof(who), "\"owner\":%" PRIu64, lcore + 2);
        else
            std::snprintf(who, sizeof(who), "\"poller\":\"r%02" PRIu64 "\"", lcore);
        return who;
    };
    for (uint64_t i = 0; i < entries; ++i) {
        const uint64_t tsc = base + i * step, l = (tsc - base) / span, req = i / 3;
        if (i)
            std::fputc(',', trace);
        switch (i % 4) {
        case 0:
            std::fprintf(trace,
                         "{\"lcore\":%" PRIu64 ",\"tpoint\":352,\"tsc\":%" PRIu64 ",%s"
                         ",\"size\":4096,\"object\":{\"id\":\"R%" PRIu64 "\",\"value\":%" PRIu64
                         "},\"args\":[%" PRIu64 ",%" PRIu64 "]}",
                         i % 2, tsc, owner_of(i % 2), req, UINT64_C(0x200000000) + req * 64, ptr(l), i % 128);
            break;
        case 1:
        case 2:
            std::fprintf(trace,
                         "{\"lcore\":%" PRIu64 ",\"tpoint\":%d,\"tsc\":%" PRIu64 ",%s"
                         ",\"object\":{\"id\":\"R%" PRIu64 "\",\"time\":%" PRIu64 ",\"value\":%" PRIu64
                         "},\"args\":[%" PRIu64 "%s]}",
                         i % 2, i % 4 == 1 ? 355 : 363, tsc, owner_of(i % 2), req, (i % 4) * step,
                         UINT64_C(0x200000000) + req * 64, ptr(l), i % 4 == 1 ? "" : ",7");
            break;
        default:
            std::fprintf(trace,
                         "{\"lcore\":1,\"tpoint\":33,\"tsc\":%" PRIu64
                         ",\"object\":{\"value\":%" PRIu64 "},\"args\":[%" PRIu64 ",0]}",
                         tsc, UINT64_C(0x300000000) + i, UINT64_C(0x300000000) + i);
        }
    }
    std::fprintf(trace, "]}");
    return std::fclose(trace) == 0 && std::fclose(records) == 0 ? 0 : 74;
}
