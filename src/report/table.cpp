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
            return printable(c.cut && c.width > 0 ? v.substr(0, static_cast<size_t>(c.width)) : v);
        }
        std::string operator()(bool v) const { return v ? "yes" : "no"; }
        std::string operator()(const std::vector<std::string>&) const { return ""; }
    };
    std::string text = std::visit(Visit{c}, cell);
    if (!std::holds_alternative<std::monostate>(cell))
        text += c.suffix;
    return text;
}

// Appends text padded to width: a report has many cells, so no fmt here.
void pad(std::string& out, const std::string& text, int width, Column::Align align)
{
    const size_t fill = text.size() < static_cast<size_t>(width) ? static_cast<size_t>(width) - text.size() : 0;
    if (align == Column::Align::right)
        out.append(fill, ' ');
    out += text;
    if (align == Column::Align::left)
        out.append(fill, ' ');
}

// The text columns up to count, each laid out by put(out, column, index).
template <class Put>
std::string line(const Table& t, size_t count, Put put)
{
    std::string out;
    out.reserve(128);
    bool first = true;
    for (size_t i = 0; i < t.columns.size() && i < count; ++i) {
        const Column& c = t.columns[i];
        if (c.title.empty())
            continue;
        if (!first)
            out.append(static_cast<size_t>(c.gap), ' ');
        first = false;
        put(out, c, i);
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
    return line(t, t.columns.size(),
                [](std::string& out, const Column& c, size_t) { pad(out, c.title, c.width, c.title_align); });
}

std::string text_rule(const Table& t)
{
    return line(t, t.rule.size(), [&](std::string& out, const Column& c, size_t i) {
        pad(out, std::string(static_cast<size_t>(t.rule[i]), '-'), c.width, c.align);
    });
}

std::string text_row(const Table& t, const Row& row)
{
    return line(t, row.cells.size(), [&](std::string& out, const Column& c, size_t i) {
        pad(out, value_text(c, row.cells[i]), c.width, c.align);
    });
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
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : t.rows)
        if (!row.text_only)
            rows.push_back(json_row(t, row));
    if (t.one_row)
        return rows.empty() ? nlohmann::json(nullptr) : rows[0];
    return rows;
}

}  // namespace kdelay
