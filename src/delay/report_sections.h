// The kernel-delay report's sections: each one function that turns its part
// of a Sample into a report kind (report/report.h), which the text and the
// JSON writer both print.
#pragma once

#include "delay/sample.h"
#include "report/report.h"

namespace kdelay {

// The sample's histograms, budgets and upcalls move into the report.
Report delay_report(Sample sample);

}  // namespace kdelay
