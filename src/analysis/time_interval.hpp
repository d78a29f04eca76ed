#pragma once
// A [start, end) span of trace time, shared by the analyses that merge, intersect or search spans.
#include "model/trace.hpp"

namespace rpl::analysis {

struct TimeInterval {
  TimeNs start, end;
};

}  // namespace rpl::analysis
