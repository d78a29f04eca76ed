#pragma once
// Importer for a rocprofv3 --pmc pass (as ncu_csv is for ncu's CSV): the pass's own trace, read from its
// rocpd databases, as vendor-neutral counter samples for analysis::pair_counter_samples.
#include "model/counter_samples.hpp"
#include "model/trace.hpp"

namespace rpl::collectors {

// Every dispatch of `pass` in launch order (start time, then dispatch id) with its counter values; a
// dispatch without values keeps its place in its kernel's launch order but is no instance (measured =
// false). Kernel names are display names, processes their rank in start order (start time, then pid).
CounterSamples pmc_counter_samples(const Trace& pass, const std::string& run = {});

}  // namespace rpl::collectors
