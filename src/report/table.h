// The report's tabular kind: rows of typed cells under columns. A column
// says both how text lays it out and under which key JSON prints it, so the
// text and the JSON writer print one model and cannot disagree on the
// numbers. report/report.h has the other kinds.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace kdelay {

// One value. The lists and flags are for what only JSON prints.
using Cell = std::variant<std::monostate, uint64_t, int64_t, double, std::string, bool, std::vector<std::string>>;

struct Column {
    enum class Align { left, right };

    std::string title;  // text header; a column without one is JSON only
    std::string key;    // JSON key; a column without one is text only
    int width = 0;      // text; 0: as wide as the value (the last column)
    Align align = Align::right;
    Align title_align = Align::right;
    int gap = 2;          // spaces before it in text (none before the first)
    bool cut = false;     // text: cut a longer string at width
    bool commas = false;  // text: 1,234,567
    int precision = -1;   // text: fixed decimals for a number
    double scale = 1;     // text: divide by this first (ns -> ms: 1e6)
    const char* suffix = "";  // text: after the value ("%")

    Column& left() { align = title_align = Align::left; return *this; }
    Column& left_title() { title_align = Align::left; return *this; }
    Column& with_gap(int n) { gap = n; return *this; }
    Column& cut_at_width() { cut = true; return *this; }
    Column& with_commas() { commas = true; return *this; }
    Column& fixed(int digits, double divide_by = 1) { precision = digits; scale = divide_by; return *this; }
    Column& with_suffix(const char* s) { suffix = s; return *this; }
};

struct Row {
    Row(std::vector<Cell> row_cells = {}, bool only_text = false)
        : cells(std::move(row_cells)), text_only(only_text)
    {
    }

    std::vector<Cell> cells;  // by column; a short row ends early in text
    bool text_only = false;   // a TOTAL line
    std::vector<std::string> text_after;  // text: lines printed as they are after the row
};

struct Table {
    Table(std::string text_title = {}, std::string json_key = {}, std::vector<Column> table_columns = {})
        : title(std::move(text_title)), key(std::move(json_key)), columns(std::move(table_columns))
    {
    }

    std::string title;  // text: "[SYSCALL STATISTICS]"
    std::string key;    // JSON: its key in the enclosing object, or its "type"
    std::vector<Column> columns;
    std::vector<Row> rows;
    std::vector<std::string> text_lines;  // text: free lines after the rows
    bool one_row = false;      // JSON: the row as an object (null without one)
    bool shown_empty = false;  // text: printed even without rows
    std::vector<int> rule;     // text: dashes of these widths under the header
    int indent = 0;            // text: spaces before every row
};

// Text: the header line, the rule line, one row (each without the indent
// and the newline).
std::string text_header(const Table& table);
std::string text_rule(const Table& table);
std::string text_row(const Table& table, const Row& row);

// JSON: one row as an object of its keyed columns; the table as an array of
// its rows (text-only rows left out), or one object or null (one_row).
nlohmann::json cell_json(const Cell& cell);
nlohmann::json json_row(const Table& table, const Row& row);
nlohmann::json json_table(const Table& table);

}  // namespace kdelay
