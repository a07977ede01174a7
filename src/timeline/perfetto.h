// A timeline as a Perfetto trace in its native protobuf format (TracePacket,
// TrackDescriptor, TrackEvent; proto/perfetto_trace.proto), which
// ui.perfetto.dev opens.
#pragma once

#include <string>

#include "timeline/timeline.h"

namespace kdelay {

// The trace's bytes.
std::string perfetto_trace(const Timeline& timeline);

}  // namespace kdelay
