// The kernel-delay report's sections: each one function that turns its part
// of a Sample into a Table, which the text and the JSON writer both print.
#pragma once

#include "delay/sample.h"
#include "report/table.h"

namespace kdelay {

// The report refers to the sample's data (the JSON documents are made when
// written): print it while the sample lives.
Report delay_report(const Sample& sample);

}  // namespace kdelay
