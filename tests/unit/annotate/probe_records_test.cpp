// Record lines as kdelay record and trace.py's bpftrace script write them.
#include <gtest/gtest.h>

#include <cstdio>

#include "annotate/probe_records.h"
#include "loader/embedded.h"
#include "core/error.h"

using namespace kdelay;

namespace {

RecordSet spdk() { return load_record_sets({}); }

std::string error_of(const std::string& text)
{
    try {
        parse_probe_records(text, "r.txt", spdk());
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), Exit::dataerr);
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST(ProbeRecords, ReadsKnownProbesAndSkipsEverythingElse)
{
    const RecordSet set = spdk();
    const auto r = parse_probe_records(
        "Attaching 3 probes...\n"
        "nvmf_poll_group_add_qpair: tsc=0x1f, qpair=0x7f00, thread=0x2\n"
        "some_other_probe: tsc=0x1, x=2\n"
        "nvmf_ctrlr_add_qpair: tsc=0x20, qpair=0x7f00, qid=0x1, subnqn='nqn.a, with a comma', hostnqn='h'\r\n"
        "not a record\n"
        "nvmf_poll_group_remove_qpair:tsc=0x21, qpair=0x7f00, thread=0x2\n"
        "nvmf_poll_group_remove_qpair: thread=2 , qpair = 7F00 , tsc=0X21\n",
        "r.txt", set);
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0].probe->name, "nvmf_poll_group_add_qpair");
    EXPECT_EQ(r[0].line, 2u);
    EXPECT_EQ(r[0].values[0].integer, 0x1fu);
    EXPECT_EQ(r[0].values[1].integer, 0x7f00u);
    EXPECT_EQ(r[1].line, 4u);
    EXPECT_EQ(r[1].values[3].text, "nqn.a, with a comma") << "a quoted string may hold commas";
    EXPECT_EQ(r[1].values[4].text, "h");
    EXPECT_EQ(r[2].line, 7u) << "no space after the colon: not a record, as in trace.py";
    EXPECT_EQ(r[2].values[0].integer, 0x21u) << "arguments by name, in any order";
    EXPECT_EQ(r[2].values[2].integer, 2u);
}

TEST(ProbeRecords, UnquotedStringsAreTrimmedLikeTracePy)
{
    const auto r = parse_probe_records(
        "nvmf_ctrlr_add_qpair: tsc=0x1, qpair=0x2, qid=0x3, subnqn= ''nqn'' , hostnqn=plain\n", "r.txt", spdk());
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].values[3].text, "'nqn'") << "a quoted value keeps what is inside its quotes";
    EXPECT_EQ(r[0].values[4].text, "plain");
}

TEST(ProbeRecords, AMalformedRecordOfAKnownProbeNamesItsLine)
{
    EXPECT_EQ(error_of("x\nnvmf_poll_group_add_qpair: tsc=0x1, qpair=zz, thread=0x1\n"),
              "r.txt: line 2: nvmf_poll_group_add_qpair: argument 'qpair': 'zz' is not a hex integer of 64 bits");
    EXPECT_EQ(error_of("nvmf_poll_group_add_qpair: tsc=0x1, qpair=0x1\n"),
              "r.txt: line 1: nvmf_poll_group_add_qpair: missing argument 'thread'");
    EXPECT_EQ(error_of("nvmf_poll_group_add_qpair: tsc=0x1, qpair=0x1, thread=0x1, cpu=0x3\n"),
              "r.txt: line 1: nvmf_poll_group_add_qpair: unexpected argument 'cpu'");
    EXPECT_EQ(error_of("nvmf_poll_group_add_qpair: tsc=0x1, qpair 0x1, thread=0x1\n"),
              "r.txt: line 1: nvmf_poll_group_add_qpair: expected name=value in 'qpair 0x1'");
    EXPECT_EQ(error_of("nvmf_poll_group_add_qpair: tsc=0x10000000000000000, qpair=0x1, thread=0x1\n"),
              "r.txt: line 1: nvmf_poll_group_add_qpair: argument 'tsc': '0x10000000000000000' is not a hex "
              "integer of 64 bits");
    EXPECT_EQ(error_of("nvmf_ctrlr_add_qpair: tsc=0x1, qpair=0x2, qid=0x3, subnqn='open, hostnqn='h\n"),
              "r.txt: line 1: nvmf_ctrlr_add_qpair: unterminated string in argument 'subnqn'");
}

TEST(ProbeRecords, ALineOverOneMebibyteIsAnErrorWithoutReadingItAll)
{
    std::FILE* f = std::tmpfile();
    std::fputs("nvmf_poll_group_add_qpair: tsc=0x1, qpair=0x1, thread=0x1\n", f);
    const std::string chunk(1 << 16, 'a');
    for (int i = 0; i < 40; ++i)  // 2.5 MiB in one line
        std::fputs(chunk.c_str(), f);
    std::fputs("\n", f);
    std::rewind(f);
    try {
        read_probe_records(f, "big.txt", spdk());
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "big.txt: line 2: line is longer than 1 MiB");
    }
    std::fclose(f);
}

TEST(ProbeRecords, ReadsAFileInBlocks)
{
    std::FILE* f = std::tmpfile();
    for (int i = 0; i < 5000; ++i)
        std::fprintf(f, "nvmf_poll_group_add_qpair: tsc=0x%x, qpair=0x%x, thread=0x1\n", i, i * 16);
    std::fputs("nvmf_poll_group_remove_qpair: tsc=0x1, qpair=0x1, thread=0x1", f);  // no final newline
    std::rewind(f);
    const auto r = read_probe_records(f, "r.txt", spdk());
    std::fclose(f);
    ASSERT_EQ(r.size(), 5001u);
    EXPECT_EQ(r[4999].values[1].integer, 4999u * 16);
    EXPECT_EQ(r[5000].line, 5001u);
}
