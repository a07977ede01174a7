// The report's kinds print in text and JSON from one model: the numbers
// read back from the text equal the JSON's.
#include "report/json_sections.h"
#include "report/text_sections.h"

#include <gtest/gtest.h>
#include <regex>

using namespace kdelay;
using nlohmann::json;

namespace {

std::vector<Table> text_of(const Section& s)
{
    std::vector<Table> out;
    for_each_text_table(s, [&](const Table& t) { out.push_back(t); });
    return out;
}

// "1,234" -> 1234.
uint64_t number(std::string text)
{
    text.erase(std::remove(text.begin(), text.end(), ','), text.end());
    return std::stoull(text);
}

// A row's text cell as the reader sees it.
std::string cell_text(const Table& t, const Row& r, size_t column)
{
    Table one{"", "", {t.columns[column]}};
    one.columns[0].gap = 0;
    return text_row(one, Row{{r.cells[column]}});
}

TimeBudget example_budget()
{
    TimeBudget b;
    b.window_ns = 1'000'000'000;
    b.running_ns = 400'000'000;
    b.irq_ns = 2'000;
    b.ready_ns = 100'000'000;
    b.ready_before_ns = 7'000'000;
    b.blocked_ns = 450'000'000;
    b.blocked = {{202, "futex", 400'000'000}, {TimeBudget::kOutsideSyscalls, "outside syscalls", 50'000'000}};
    b.remainder_ns = 50'000'000;
    for (uint32_t i = 0; i < 9; ++i)  // more wakers and holders than the text lists
        b.wakers.push_back({{i == 3 ? WakerKind::softirq : WakerKind::task, 100 + i, 100, "w" + std::to_string(i)},
                            i == 8 ? 500u : 10u - i,
                            1'000'000 - i * 1'000});
    for (uint32_t i = 0; i < 9; ++i)
        b.ready_blame.push_back(
            {{i == 2 ? HolderKind::irq : i == 7 ? HolderKind::others : HolderKind::task, 200 + i, 200, "h" + std::to_string(i)},
             900'000 - i * 1'000});
    return b;
}

}  // namespace

TEST(ReportKinds, BudgetTextAndJsonAgree)
{
    const Section s = BudgetSection{example_budget()};
    const auto [key, j] = json_section(s);
    EXPECT_EQ(key, "budget");
    const auto tables = text_of(s);
    ASSERT_EQ(tables.size(), 3u);

    std::map<std::string, uint64_t> state;
    for (const Row& r : tables[0].rows)
        state[std::get<std::string>(r.cells[0])] = number(cell_text(tables[0], r, 1));
    EXPECT_EQ(state["RUNNING"], j["running_ns"]);
    EXPECT_EQ(state["  in IRQs"], j["irq_ns"]);
    EXPECT_EQ(state["READY"], j["ready_ns"]);
    EXPECT_EQ(state["BLOCKED"], j["blocked_ns"]);
    EXPECT_EQ(state["  futex"], j["blocked"][0]["ns"]);
    EXPECT_EQ(state["  outside syscalls"], j["blocked"][1]["ns"]);
    EXPECT_TRUE(j["blocked"][1]["outside_syscalls"].get<bool>());
    EXPECT_EQ(state["REMAINDER"], j["remainder_ns"]);
    EXPECT_EQ(state["WINDOW"], j["window_ns"]);
    EXPECT_EQ(state.count("STOPPED"), 0u) << "a zero state other than the core ones is left out of text";
    EXPECT_EQ(j["ready_before_window_ns"], 7'000'000u);
    ASSERT_FALSE(tables[0].text_lines.empty());
    EXPECT_EQ(tables[0].text_lines.back(), "(READY when the window opened, after 7,000,000 ns of waiting before it)");

    // Text lists fewer holders and wakers, and sums the rest: the totals agree.
    uint64_t blame_text = 0, blame_json = 0, wakes_text = 0, wakes_json = 0, woken_text = 0, woken_json = 0;
    for (const Row& r : tables[1].rows)
        blame_text += number(cell_text(tables[1], r, 1));
    for (const auto& h : j["ready_by"])
        blame_json += h["ns"].get<uint64_t>();
    for (const Row& r : tables[2].rows) {
        wakes_text += number(cell_text(tables[2], r, 1));
        woken_text += number(cell_text(tables[2], r, 2));
    }
    for (const auto& w : j["wakers"]) {
        wakes_json += w["count"].get<uint64_t>();
        woken_json += w["blocked_ns"].get<uint64_t>();
    }
    EXPECT_EQ(blame_text, blame_json);
    EXPECT_EQ(wakes_text, wakes_json);
    EXPECT_EQ(woken_text, woken_json);
    EXPECT_EQ(j["ready_by"].size(), 9u);
    EXPECT_EQ(j["wakers"].size(), 9u);
    EXPECT_LT(tables[2].rows.size(), 9u);
    EXPECT_EQ(std::get<std::string>(tables[2].rows[5].cells[0]), "w8 (100/108)") << "the top waker by count is listed";
}

TEST(ReportKinds, NoBudgetIsNullInJsonAndNothingInText)
{
    const Section s = BudgetSection{};
    EXPECT_TRUE(json_section(s).second.is_null());
    EXPECT_TRUE(text_of(s).empty());
}

TEST(ReportKinds, HistogramTextAndJsonAgree)
{
    Histograms h;
    Log2Hist hist;
    hist.slots[3] = 5;
    hist.slots[10] = 2;
    hist.slots[20] = 1;
    h.list = {{"blocked", "futex", 202, true, hist}, {"run", "", 0, false, hist}};
    const auto [key, j] = json_section(h);
    EXPECT_EQ(key, "histograms");
    const auto tables = text_of(h);
    ASSERT_EQ(tables.size(), 2u);
    ASSERT_EQ(j.size(), 2u);
    const std::regex summary(R"(^(.*): count ([\d,]+), p50 ([\d,]+) ns, p90 ([\d,]+) ns, p99 ([\d,]+) ns$)");
    const std::regex bucket(R"(^\s*(\d+) -> (\d+)\s*: (\d+)\s)");
    for (size_t i = 0; i < 2; ++i) {
        std::smatch m;
        ASSERT_TRUE(std::regex_match(tables[i].text_lines[0], m, summary)) << tables[i].text_lines[0];
        EXPECT_EQ(m[1], i == 0 ? "blocked futex (202)" : "run");
        EXPECT_EQ(number(m[2]), j[i]["count"]);
        EXPECT_EQ(number(m[3]), j[i]["p50_ns"]);
        EXPECT_EQ(number(m[4]), j[i]["p90_ns"]);
        EXPECT_EQ(number(m[5]), j[i]["p99_ns"]);
        // Text prints the empty slots between the first and the last; JSON only the others.
        size_t next = 0;
        for (const auto& line : tables[i].text_lines) {
            if (!std::regex_search(line, m, bucket) || m[3] == "0")
                continue;
            ASSERT_LT(next, j[i]["buckets"].size());
            EXPECT_EQ(number(m[1]), j[i]["buckets"][next]["low"]);
            EXPECT_EQ(number(m[2]), j[i]["buckets"][next]["high"]);
            EXPECT_EQ(number(m[3]), j[i]["buckets"][next]["count"]);
            ++next;
        }
        EXPECT_EQ(next, j[i]["buckets"].size());
    }
}

TEST(ReportKinds, UpcallTextAndJsonAgree)
{
    UpcallStats u;
    u.total = {{0, 8937}, {1, 14466}};
    u.succeeded = {{0, 5945}, {1, 6379}};
    u.failed = {{11, {{0, 2992}, {1, 8085}}}, {105, {{0, 0}, {1, 2}}}};
    const Section s = UpcallSection{u};
    const auto [key, j] = json_section(s);
    EXPECT_EQ(key, "upcalls");
    const auto tables = text_of(s);
    ASSERT_EQ(tables.size(), 1u);
    const auto& lines = tables[0].text_lines;
    ASSERT_EQ(lines.size(), 5u);
    auto total_of = [](const std::string& line) { return number(line.substr(line.rfind(": ", line.find('[')) + 2)); };
    EXPECT_EQ(total_of(lines[0]), j["total"]);
    EXPECT_EQ(total_of(lines[1]), j["succeeded"]);
    EXPECT_EQ(total_of(lines[3]), j["errors"][0]["count"]);
    EXPECT_EQ(total_of(lines[4]), j["errors"][1]["count"]);
    EXPECT_EQ(total_of(lines[2]), j["errors"][0]["count"].get<uint64_t>() + j["errors"][1]["count"].get<uint64_t>());
    EXPECT_NE(lines[3].find("EAGAIN"), std::string::npos);
    EXPECT_EQ(j["errors"][0]["name"], "EAGAIN");
}

TEST(ReportKinds, UpcallsNotCountedAreNullInJsonAndNothingInText)
{
    EXPECT_TRUE(json_section(UpcallSection{}).second.is_null());
    EXPECT_TRUE(text_of(UpcallSection{}).empty());
    EXPECT_TRUE(text_of(UpcallSection{UpcallStats{}}).empty()) << "no upcall seen: no text";
    EXPECT_EQ(json_section(UpcallSection{UpcallStats{}}).second["total"], 0);
}
