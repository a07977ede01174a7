// The streaming spdk_trace -j reader: both schemas, any whitespace, skipped
// unknown keys, and one clear error with a byte offset for bad input.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "annotate/trace_reader.h"
#include "core/error.h"

using namespace kdelay;

namespace {

struct Seen {
    uint64_t lcore, tsc, size;
    std::string tpoint, poller, owner, object_id, related;
    bool has_poller, has_owner, has_time;
    uint64_t time;
    std::vector<std::string> args;  // "i:N" or "s:TEXT"
};

struct Collect : TraceSink {
    TraceHeader header_copy;
    bool got_header = false;
    std::vector<Seen> entries;
    TraceEntry slot;
    void header(const TraceHeader& h) override
    {
        header_copy = h;
        got_header = true;
    }
    TraceEntry& next_entry() override { return slot; }
    void entry(TraceEntry& e) override
    {
        Seen s{e.lcore, e.tsc, e.size, e.tpoint->name, e.poller, e.owner, e.object_id, e.related,
               e.has_poller, e.has_owner, e.has_time, e.time, {}};
        for (size_t i = 0; i < e.arg_count; ++i)
            s.args.push_back(e.args[i].is_string ? "s:" + e.args[i].text : "i:" + std::to_string(e.args[i].integer));
        entries.push_back(s);
    }
};

Collect read(const std::string& text)
{
    std::FILE* f = std::tmpfile();  // the reader wants a file descriptor
    std::fwrite(text.data(), 1, text.size(), f);
    std::fflush(f);
    std::rewind(f);
    Collect c;
    try {
        read_spdk_trace(f, "t.json", c);
    } catch (...) {
        std::fclose(f);
        throw;
    }
    std::fclose(f);
    return c;
}

std::string error_of(const std::string& text)
{
    try {
        read(text);
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), Exit::dataerr) << e.what();
        return e.what();
    }
    return "(no error)";
}

const std::string kDefs =
    R"({"tsc_rate":1000,"tpoints":[{"name":"A","id":1,"new_object":true,"args":[{"name":"p","type":1,"size":8},{"name":"s","type":2,"size":8}]},)"
    R"({"name":"B","id":70000,"new_object":false,"args":[]}],)";

}  // namespace

TEST(TraceReader, ReadsTheClassicSchema)
{
    const auto c = read(kDefs + R"("entries":[{"lcore":3,"tpoint":1,"tsc":18446744073709551615,"poller":"r01","size":4096,)"
                                R"("object":{"id":"R7","time":12,"value":99},"related":"T2","args":[255,"nqn"]},)"
                                R"({"lcore":0,"tpoint":70000,"tsc":5}]})");
    ASSERT_TRUE(c.got_header);
    EXPECT_EQ(c.header_copy.tsc_rate, 1000u);
    ASSERT_EQ(c.header_copy.tpoints.size(), 2u);
    EXPECT_TRUE(c.header_copy.tpoints[0].new_object);
    ASSERT_EQ(c.entries.size(), 2u);
    const Seen& e = c.entries[0];
    EXPECT_EQ(e.lcore, 3u);
    EXPECT_EQ(e.tsc, UINT64_MAX) << "integers are u64, beyond 2^53";
    EXPECT_EQ(e.tpoint, "A");
    EXPECT_EQ(e.poller, "r01");
    EXPECT_EQ(e.size, 4096u);
    EXPECT_EQ(e.object_id, "R7");
    EXPECT_TRUE(e.has_time);
    EXPECT_EQ(e.time, 12u);
    EXPECT_EQ(e.related, "T2");
    EXPECT_EQ(e.args, (std::vector<std::string>{"i:255", "s:nqn"}));
    EXPECT_EQ(c.entries[1].tpoint, "B");
    EXPECT_FALSE(c.entries[1].has_poller);
}

TEST(TraceReader, ReadsTheOwnersSchema)
{
    const auto c = read(R"({"tsc_rate":1,"owners":{"2":"poll_group_0","9":{"type":1,"description":"app"}},)"
                        R"("tpoints":[{"name":"A","id":1,"new_object":false,"args":[]}],)"
                        R"("entries":[{"lcore":0,"tpoint":1,"tsc":1,"owner":2},{"lcore":0,"tpoint":1,"tsc":2,"owner":"9"}]})");
    EXPECT_EQ(c.header_copy.owners.at("2"), "poll_group_0");
    EXPECT_EQ(c.header_copy.owners.at("9"), "app");
    ASSERT_EQ(c.entries.size(), 2u);
    EXPECT_TRUE(c.entries[0].has_owner);
    EXPECT_EQ(c.entries[0].owner, "2");
    EXPECT_EQ(c.entries[1].owner, "9");
}

// Escapes, spaces and unknown keys leave the fast path; the result is the same.
TEST(TraceReader, AnyLayoutReadsTheSame)
{
    const auto compact = read(kDefs + R"("entries":[{"lcore":1,"tpoint":1,"tsc":7,"poller":"r00","args":[1,"a\"b"]}]})");
    const auto spaced = read(kDefs + " \"entries\" : [ \n\t{ \"x\" : {\"deep\":[1,{\"y\":null}]}, \"lcore\" : 1 ,\r\n"
                                     "\"tpoint\" : 1, \"tsc\":7, \"poller\": \"r\\u0030\\u0030\", \"extra\": -1.5e3,"
                                     " \"args\" : [ 1 , \"a\\\"b\" ] } ] , \"later\": [1] } \n");
    ASSERT_EQ(compact.entries.size(), 1u);
    ASSERT_EQ(spaced.entries.size(), 1u);
    EXPECT_EQ(compact.entries[0].poller, spaced.entries[0].poller);
    EXPECT_EQ(compact.entries[0].args, spaced.entries[0].args);
    EXPECT_EQ(spaced.entries[0].args[1], "s:a\"b");
}

TEST(TraceReader, RepeatedTpointIdReplacesTheDefinitionInPlace)
{
    const auto c = read(R"({"tsc_rate":1,"tpoints":[{"name":"A","id":1,"new_object":false},{"name":"B","id":2,"new_object":false},)"
                        R"({"name":"C","id":1,"new_object":false}],"entries":[{"lcore":0,"tpoint":1,"tsc":1}]})");
    ASSERT_EQ(c.header_copy.tpoints.size(), 2u);
    EXPECT_EQ(c.header_copy.tpoints[0].name, "C");
    EXPECT_EQ(c.entries.at(0).tpoint, "C");
}

TEST(TraceReader, NoEntriesPrintsNothing)
{
    EXPECT_TRUE(read(R"({"tsc_rate":1,"tpoints":[],"entries":[]})").entries.empty());
    EXPECT_FALSE(read(R"({"tsc_rate":1,"tpoints":[]})").got_header);
}

struct Bad {
    std::string input;
    std::string message;  // a part of the error, with its location
};

class TraceReaderBadInput : public testing::TestWithParam<Bad> {};

TEST_P(TraceReaderBadInput, OneClearErrorWithItsLocation)
{
    const std::string what = error_of(GetParam().input);
    EXPECT_NE(what.find(GetParam().message), std::string::npos) << what;
    EXPECT_EQ(what.rfind("t.json: byte ", 0), 0u) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TraceReaderBadInput,
    testing::Values(
        Bad{"", "byte 0: invalid JSON: The document is empty"},
        Bad{"[1]", "byte 1: the input is not a JSON object"},
        Bad{kDefs + R"("entries":[{"lcore":1,"tpoint":1,"tsc":7},{"lcore":1,"tpo)", "the input ends too early (truncated?)"},
        Bad{kDefs + R"("entries":[{"lcore":1,"tpoint":1,"tsc":7})", "the input ends too early (truncated?)"},
        Bad{kDefs + R"("entries":[{"lcore":1,"tpoint":1,"tsc":7}])", "truncated"},
        Bad{kDefs + R"("entries":[{"lcore":"1","tpoint":1,"tsc":7}]})", "\"lcore\" in entry 0: wrong type (a string)"},
        Bad{kDefs + R"("entries":[{"lcore":1,"tpoint":1,"tsc":-7}]})", "\"tsc\" in entry 0: expected an unsigned 64-bit integer, found a negative number"},
        Bad{kDefs + R"("entries":[{"lcore":1,"tpoint":1,"tsc":7.5}]})", "found a fraction"},
        Bad{kDefs + R"("entries":[{"lcore":1,"tpoint":1,"tsc":18446744073709551616}]})", "out of range"},
        Bad{kDefs + R"("entries":[{"lcore":1,"tpoint":1,"tsc":7,"args":["x","y"]}]})", "entry 0: arg 0 (p) of A should be an integer"},
        Bad{kDefs + R"("entries":[{"lcore":1,"tpoint":1,"tsc":7,"args":[1,2]}]})", "entry 0: arg 1 (s) of A should be a string"},
        Bad{kDefs + R"("entries":[{"lcore":1,"tpoint":1,"tsc":7,"args":[1,{}]}]})", "in entry 0: wrong type (an object)"},
        Bad{kDefs + R"("entries":[{"lcore":1,"tpoint":1,"tsc":7},{"lcore":1,"tpoint":3,"tsc":8}]})",
            "byte 233: entry 1: unknown tpoint id 3"},
        Bad{kDefs + R"("entries":[{"lcore":1,"tsc":8}]})", "entry 0: needs \"lcore\", \"tpoint\" and \"tsc\""},
        Bad{kDefs + R"("entries":[7]})", "expected an entry object"},
        Bad{kDefs + R"("entries":[{"lcore":1,"tpoint":1,"tsc":7} {"lcore":1}]})", "expected ',' or ']' after an entry"},
        Bad{R"({"tsc_rate":0,"tpoints":[{"name":"A","id":1,"new_object":false}],"entries":[{"lcore":1,"tpoint":1,"tsc":7}]})",
            "\"tsc_rate\" is missing or 0"},
        Bad{R"({"tsc_rate":1,"entries":[{"lcore":1,"tpoint":1,"tsc":7}],"tpoints":[]})", "unknown tpoint id 1"},
        Bad{R"({"tsc_rate":1,"tpoints":[{"id":1}]})", "a tpoint definition needs \"name\" and \"id\""},
        Bad{R"({"tsc_rate":"fast"})", "\"tsc_rate\" at the top level: wrong type (a string)"},
        Bad{R"({"tsc_rate":1,"tpoints":[],"entries":[]} {})", "The document root must not be followed by other values"},
        Bad{"{\"x\":" + std::string(100, '[') + std::string(100, ']') + "}", "nested deeper than 64 levels"},
        Bad{R"({"tsc_rate":1,"tpoints":[],"entries":[{"lcore":1,"tpoint":1,"tsc":7,"poller":"a)" "\x01" R"("}]})",
            "byte 79: invalid JSON: Invalid escape character in string"}));

// rapidjson holds a whole string in memory: one larger than any SPDK entry
// is refused instead of growing without bound.
TEST(TraceReader, AHugeEntryIsRefused)
{
    const std::string doc = kDefs + R"("entries":[{"lcore":1,"tpoint":1,"tsc":7,"args":[1,")" +
                            std::string((64 << 20) + 10, 'x') + R"("]}]})";
    const std::string what = error_of(doc);
    EXPECT_NE(what.find("an entry longer than 64 MiB"), std::string::npos) << what.substr(0, 200);
}

// The fast path matches spdk_trace's keys as literals; a key that only looks
// like one, or a spaced one, takes the general path to the same result.
TEST(TraceReader, LookalikeKeysAndLongNumbers)
{
    const auto c = read(kDefs + R"("entries":[{"lcore":1,"tscx":5,"ts":6,"tpoint" :1,"tsc":12345678901234567890,)"
                                R"("objectx":{"id":"no"},"object":{"idx":"no","id":"R1","timex":3,"value":1234567890123456789},)"
                                R"("argsx":[9],"args":[9999999999999999999,"x"]}]})");
    ASSERT_EQ(c.entries.size(), 1u);
    const Seen& e = c.entries[0];
    EXPECT_EQ(e.tsc, 12345678901234567890u) << "20 digits";
    EXPECT_EQ(e.object_id, "R1");
    EXPECT_FALSE(e.has_time);
    EXPECT_EQ(e.args, (std::vector<std::string>{"i:9999999999999999999", "s:x"}));
    EXPECT_NE(error_of(kDefs + R"("entries":[{"lcore":1,"tpoint":1,"tsc":18446744073709551616}]})"), "(no error)")
        << "2^64 does not fit";
}
