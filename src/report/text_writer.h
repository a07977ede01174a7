// The text report, in kernel_delay.py's layout.
#pragma once

#include <ostream>

#include "report/writer.h"

namespace kdelay {

class TextWriter : public ReportWriter {
public:
    explicit TextWriter(std::ostream& out) : out_(out) {}

    void marker(const Marker& marker) override;
    void sample(const Sample& sample) override;
    void bio_header(bool queue) override;
    void bio_event(const BioEvent& event, bool queue) override;
    void bio_summary(const std::vector<BioSummaryRow>& rows) override;
    void note(const std::string& text) override;
    void warning(const std::string& text) override;

private:
    void upcalls(const UpcallStats& upcalls);
    void events(const std::vector<SyscallEvent>& events);
    std::ostream& out_;
};

}  // namespace kdelay
