// JSON Lines output: one object per marker, sample, note, warning or I/O,
// with raw integer nanoseconds. The schema is in docs/json.md.
#pragma once

#include <ostream>

#include "report/writer.h"

namespace kdelay {

class JsonWriter : public ReportWriter {
public:
    explicit JsonWriter(std::ostream& out) : out_(out) {}

    void marker(const Marker& marker) override;
    void sample(const Sample& sample) override;
    void bio_header(bool queue) override;
    void bio_event(const BioEvent& event, bool queue) override;
    void bio_summary(const std::vector<BioSummaryRow>& rows) override;
    void note(const std::string& text) override;
    void warning(const std::string& text) override;

private:
    template <class Json>
    void line(const Json& object);
    std::ostream& out_;
};

}  // namespace kdelay
