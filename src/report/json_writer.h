// JSON Lines output: one object per marker, sample, note, warning or row,
// with raw integer nanoseconds, from the tables of report/table.h. The
// schema is in docs/json.md.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "report/writer.h"

namespace kdelay {

class JsonWriter : public ReportWriter {
public:
    explicit JsonWriter(std::ostream& out) : out_(out) {}

    void marker(const Marker& marker) override;
    void report(const Report& report) override;
    void rows_begin(const Table& columns) override;
    void row(const Table& columns, const Row& row) override;
    void table(const Table& table) override;
    void note(const std::string& text) override;
    void warning(const std::string& text) override;

private:
    void line(const nlohmann::json& object);
    std::ostream& out_;
};

}  // namespace kdelay
