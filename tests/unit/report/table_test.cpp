#include "report/table.h"

#include <gtest/gtest.h>

using namespace kdelay;
using nlohmann::json;

namespace {

// NAME (text and JSON), TIME (commas), SHARE (text only), then a JSON-only key.
Table example()
{
    Table t{"[EXAMPLE]", "example"};
    t.columns = {Column{"NAME", "name", 8}.left().cut_at_width(), Column{"TIME ns", "ns", 12}.with_commas(),
                 Column{"SHARE", "", 7}.fixed(1).with_suffix("%"), Column{"", "extra"}};
    t.rows = {Row{{std::string("a-very-long-name"), uint64_t{1234567}, 12.345, std::vector<std::string>{"1", "2"}}},
              Row{{std::string("neg"), int64_t{-5000}, 0.0, Cell{}}},
              Row{{std::string("TOTAL:"), uint64_t{1229567}}, true}};
    return t;
}

}  // namespace

TEST(Table, TextLaysOutEachColumnAndEndsAShortRowEarly)
{
    const Table t = example();
    EXPECT_EQ(text_header(t), "NAME           TIME ns    SHARE");
    EXPECT_EQ(text_row(t, t.rows[0]), "a-very-l     1,234,567    12.3%");
    EXPECT_EQ(text_row(t, t.rows[1]), "neg             -5,000     0.0%");
    EXPECT_EQ(text_row(t, t.rows[2]), "TOTAL:       1,229,567");
}

TEST(Table, JsonHasTheKeyedColumnsAndLeavesTextOnlyRowsOut)
{
    const json j = json_table(example());
    ASSERT_EQ(j.size(), 2u);
    EXPECT_EQ(j[0], (json{{"name", "a-very-long-name"}, {"ns", 1234567}, {"extra", {"1", "2"}}}));
    EXPECT_EQ(j[1]["ns"], -5000);
    EXPECT_TRUE(j[1]["extra"].is_null());
}

TEST(Table, OneRowIsAnObjectOrNull)
{
    Table t{"[ONE]", "one", {Column{"COUNT", "count", 10}}};
    t.one_row = true;
    EXPECT_TRUE(json_table(t).is_null());
    t.rows.push_back(Row{{uint64_t{3}}});
    EXPECT_EQ(json_table(t), (json{{"count", 3}}));
}

TEST(Table, RuleAndScaledFixedNumbers)
{
    Table t{"", "bio", {Column{"LAT(ms)", "latency_ns", 7}.fixed(2, 1e6), Column{"COMM", "comm"}.left().with_gap(1)}};
    t.rule = {7, 4};
    EXPECT_EQ(text_header(t), "LAT(ms) COMM");
    EXPECT_EQ(text_rule(t), "------- ----");
    EXPECT_EQ(text_row(t, Row{{uint64_t{2500000}, std::string("dd")}}), "   2.50 dd");
    EXPECT_EQ(json_row(t, Row{{uint64_t{2500000}, std::string("dd")}}), (json{{"latency_ns", 2500000}, {"comm", "dd"}}));
}
