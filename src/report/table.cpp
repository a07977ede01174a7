#include "report/table.h"

#include <fmt/format.h>

#include "report/format.h"

namespace kdelay {
namespace {

std::string number(const Column& c, double v)
{
    return c.precision >= 0 ? fmt::format("{:.{}f}", v / c.scale, c.precision) : fmt::format("{}", v / c.scale);
}

std::string value_text(const Column& c, const Cell& cell)
{
    struct Visit {
        const Column& c;
        std::string operator()(std::monostate) const { return ""; }
        std::string operator()(uint64_t v) const
        {
            if (c.precision >= 0)
                return number(c, static_cast<double>(v));
            return c.commas ? with_commas(v) : std::to_string(v);
        }
        std::string operator()(int64_t v) const
        {
            if (v >= 0)
                return (*this)(static_cast<uint64_t>(v));
            return "-" + (*this)(static_cast<uint64_t>(-v));
        }
        std::string operator()(double v) const { return number(c, v); }
        std::string operator()(const std::string& v) const
        {
            return c.cut && c.width > 0 ? v.substr(0, static_cast<size_t>(c.width)) : v;
        }
        std::string operator()(const nlohmann::json&) const { return ""; }
    };
    std::string text = std::visit(Visit{c}, cell);
    if (!std::holds_alternative<std::monostate>(cell))
        text += c.suffix;
    return text;
}

std::string pad(const std::string& text, int width, Column::Align align)
{
    if (align == Column::Align::left)
        return fmt::format("{:<{}}", text, width);
    return fmt::format("{:>{}}", text, width);
}

// The text columns up to count, each laid out by put(column, index).
template <class Put>
std::string line(const Table& t, size_t count, Put put)
{
    std::string out;
    bool first = true;
    for (size_t i = 0; i < t.columns.size() && i < count; ++i) {
        const Column& c = t.columns[i];
        if (c.title.empty())
            continue;
        if (!first)
            out.append(static_cast<size_t>(c.gap), ' ');
        first = false;
        out += put(c, i);
    }
    return out;
}

}  // namespace

nlohmann::json cell_json(const Cell& cell)
{
    return std::visit(
        [](const auto& v) -> nlohmann::json {
            if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>)
                return nullptr;
            else
                return v;
        },
        cell);
}

std::string text_header(const Table& t)
{
    return line(t, t.columns.size(), [](const Column& c, size_t) { return pad(c.title, c.width, c.title_align); });
}

std::string text_rule(const Table& t)
{
    return line(t, t.rule.size(),
                [&](const Column& c, size_t i) { return pad(std::string(static_cast<size_t>(t.rule[i]), '-'), c.width, c.align); });
}

std::string text_row(const Table& t, const Row& row)
{
    return line(t, row.cells.size(),
                [&](const Column& c, size_t i) { return pad(value_text(c, row.cells[i]), c.width, c.align); });
}

nlohmann::json json_row(const Table& t, const Row& row)
{
    nlohmann::json j = nlohmann::json::object();
    for (size_t i = 0; i < t.columns.size() && i < row.cells.size(); ++i)
        if (!t.columns[i].key.empty())
            j[t.columns[i].key] = cell_json(row.cells[i]);
    return j;
}

nlohmann::json json_table(const Table& t)
{
    if (!t.json_value.is_null())
        return t.json_value;
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : t.rows)
        if (!row.text_only)
            rows.push_back(json_row(t, row));
    if (t.one_row)
        return rows.empty() ? nlohmann::json(nullptr) : rows[0];
    return rows;
}

}  // namespace kdelay
