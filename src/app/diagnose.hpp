#pragma once
// The counter-based half of `analyze`: roofline, deep analysis and bottleneck labels per kernel. Works on
// any trace: without counters every kernel still gets a (usually empty) classification from occupancy, and
// the roofline lists the devices and their ceilings.
#include "app/analyze.hpp"

namespace rpl::app {

// Fills r.roofline and r.diagnosis from r.trace, r.stats, r.occupancy and r.empirical_ceilings.
void diagnose_kernels(AnalyzeResults& r, const AnalyzeOptions& options);

}  // namespace rpl::app
