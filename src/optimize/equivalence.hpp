#pragma once
// The equivalence gate's data work, vendor-neutral, on capture directories (src/capture) and replay dumps:
// - element types of the regions the kernel's pointer parameters point into (capture/element_types.hpp: from
//   the captured argument buffer and the kernel's demangled signature), so poison and random values have the
//   right type;
// - derived captures: "poisoned" (every element the original kernel wrote, i.e. that differs between the
//   before and after snapshots, filled with a NaN / sentinel pattern before the launch, so a kernel that
//   skips work or relies on stale output leaves poison behind) and "randomised" (the regions the kernel
//   only reads refilled with new values of their type: floats uniform over the captured range, integers
//   shuffled so indices stay valid; written elements poisoned as well). Derived captures carry no after
//   snapshot: the replay runner then verifies nothing itself and the optimizer compares dumps;
// - the comparison of two replays' final memory, region by region: bit-exact, or within rtol/atol with the
//   largest absolute, relative and ULP errors reported.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "capture/element_types.hpp"
#include "capture/manifest.hpp"

namespace rpl::optimize {

using capture::ElementType;
using capture::demangled_parameters;
using capture::pointee_element_type;
using capture::region_element_types;

struct DeriveOptions {
  bool poison_written = true;
  bool randomise_read = false;
  uint64_t seed = 1;
  std::vector<std::string> source_param_types;  // see region_element_types
};

struct DeriveSummary {
  uint64_t regions_poisoned = 0, elements_poisoned = 0;
  uint64_t regions_randomised = 0, elements_randomised = 0;
  // integer regions left as captured because their elements are sorted (offsets: a CSR row pointer, segment starts)
  uint64_t regions_kept_sorted = 0;
  uint64_t bytes_written_by_original = 0;  // bytes of the elements the original changed
  nlohmann::json to_json() const;
};

// Writes a derived capture of `source` into the new directory `target` (blobs of code object and arguments
// copied, memory snapshots rewritten, no after snapshots).
DeriveSummary derive_capture(const std::filesystem::path& source, const std::filesystem::path& target, const DeriveOptions& options);

// How --rtol scales. A floating-point sum's rounding error grows with its terms, not with its result: a block
// sum or dot product that cancels to nearly 0 carries errors the size of its terms' rounding, so a reordered but
// correct reduction fails any bound relative to that element alone. Region (the default): an element may differ
// by atol + rtol * max(|x|, RMS of the original's values in the region); Element: atol + rtol * |x| (numpy.isclose).
enum class ToleranceScale { Region, Element };
const char* to_string(ToleranceScale s);  // "region", "element"

struct Tolerance {
  double rtol = 0, atol = 0;
  ToleranceScale scale = ToleranceScale::Region;
  bool exact() const { return rtol == 0 && atol == 0; }
};

struct RegionComparison {
  uint64_t region = 0;
  std::string element = "bytes";
  uint64_t bytes = 0, bytes_differing = 0, elements_differing = 0, first_difference = 0;
  double max_abs_error = 0, max_rel_error = 0;
  uint64_t max_ulp = 0;
  double rms_magnitude = 0;  // RMS of the original's finite values (floats compared under a tolerance)
  bool within_tolerance = true;
  std::string problem;  // "missing in candidate dump", ...
};

struct DumpComparison {
  bool equivalent = true;
  std::vector<RegionComparison> regions;  // every region; only differing ones go into evidence
  nlohmann::json to_json() const;
};

// Compares r<ID>.bin of every region of `m` in both dump directories.
DumpComparison compare_dumps(const capture::Manifest& m, const std::map<uint64_t, ElementType>& types,
                             const std::filesystem::path& original, const std::filesystem::path& candidate,
                             const Tolerance& tolerance);

// For an original whose result varies run to run (split-K, float atomics): the candidate's dump judged against
// the spread of several dumps of the original on the same input, by the replay's own rule
// (capture/replay_compare.hpp): differences only where, or within what, the original's replays differ among
// themselves. A region passes (within_tolerance) unless that rule calls it a mismatch; `problem` says which.
DumpComparison compare_with_spread(const capture::Manifest& m, const std::map<uint64_t, ElementType>& types,
                                   const std::vector<std::filesystem::path>& originals,
                                   const std::filesystem::path& candidate);

}  // namespace rpl::optimize
