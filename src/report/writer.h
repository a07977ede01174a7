// Where reports go. Every mode talks to this interface, so text and other
// formats share one path.
#pragma once

#include <chrono>
#include <string>

#include <vector>

#include "block/bio_event.h"
#include "delay/sample.h"

namespace kdelay {

class ReportWriter {
public:
    using Time = std::chrono::system_clock::time_point;
    virtual ~ReportWriter() = default;

    // A point in the run, such as "Start sampling", with its wall-clock time.
    virtual void marker(const std::string& what, Time when) = 0;
    virtual void sample(const Sample& sample) = 0;
    // biosnoop: the column header (QUE(ms) only with queue), then one line per I/O.
    virtual void bio_header(bool queue) = 0;
    virtual void bio_event(const BioEvent& event, bool queue) = 0;
    virtual void bio_summary(const std::vector<BioSummaryRow>& rows) = 0;
    // Something the user should know that is not an error.
    virtual void note(const std::string& text) = 0;
    // Data was lost or is incomplete.
    virtual void warning(const std::string& text) = 0;
};

}  // namespace kdelay
