#pragma once
// Pairing a counter run's samples with the trace run's dispatches: one rule for every counter source.
//
// The counter run and the trace run are separate processes running the same command. An instance is
// paired with the trace's dispatch of the same kernel (CounterKernelNames says how its name is looked up)
// and the same occurrence: the i-th launch of kernel K in the counter run gets the i-th dispatch of K in
// the trace (start time, then dispatch id), per process where the runs' processes can be identified
// (CounterProcesses), else across all processes. This holds for programs whose launch sequence does not
// depend on timing; every instance that cannot be paired is counted and said: a kernel the trace does not
// have, more launches than the trace has dispatches, fewer (only the first dispatches get values), a grid
// or block size that differs from the dispatch's (the pairing is probably off), a name that is ambiguous.
// A value for a (dispatch, counter) the trace already holds is not paired again.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "model/counter_samples.hpp"
#include "model/trace.hpp"

namespace rpl::analysis {

struct PairedValue {
  Index dispatch = kNoIndex;  // into Trace::dispatches
  std::size_t counter = 0;    // into CounterSamples::counters
  double value = 0;
};

struct CounterPairing {
  std::vector<PairedValue> values;
  std::size_t matched_instances = 0;    // measured instances paired with a dispatch
  std::size_t unmatched_instances = 0;  // measured instances that were not
  std::vector<std::string> warnings;    // the samples' own, then every reason an instance was not paired
  std::size_t instances() const { return matched_instances + unmatched_instances; }
};

CounterPairing pair_counter_samples(const Trace& trace, const CounterSamples& samples);

// Pairs and adds the values to `trace.counters` (the counter names interned into its strings).
CounterPairing attach_counter_samples(Trace& trace, const CounterSamples& samples);

// "void k<float>(T1 *, T1)" -> "k<float>": return type and parameter list removed, spaces trimmed.
std::string kernel_base_name(std::string_view name);

}  // namespace rpl::analysis
