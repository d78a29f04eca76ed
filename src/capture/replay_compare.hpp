#pragma once
// The replay's verdict on one memory region, pure (no GPU): the captured after-snapshot (or any other result
// to judge, e.g. an optimizer candidate's) against N replays of the unchanged code from the same state.
//
// Split-K / stream-K GEMMs, float atomics and workspace counters make the same code write different bytes on
// each run. So:
// - bytes where the replays differ from each other are nondeterministic;
// - a region whose replays agree everywhere is deterministic: any byte of the judged result that differs is a
//   mismatch;
// - in a region whose replays differ, an element of the judged result that equals none of the replays is
//   accepted as nondeterministic when its distance to the nearest replay lies within kSpreadFactor times the
//   region's own spread (the largest distance between two replays, in ULPs or in absolute value), else it is
//   a mismatch. Raw bytes (no float type): only bytes inside the varying set are accepted.
// Magnitudes (max absolute, relative and ULP distance) are given for floating-point regions, whose element
// type is either known (kernel signature) or inferred from the differences (fp32, bf16, fp16: the one under
// which the differences are smallest and the values plausible).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace rpl::capture {

enum class Element { Infer, Bytes, F32, F16, BF16 };
const char* element_name(Element e);  // "infer", "bytes", "f32", "f16", "bf16"
std::size_t element_size(Element e);  // 1 for Bytes/Infer

// The value of the floating-point element of format `e` (F32, F16 or BF16) at `p`.
double element_value(Element e, const std::byte* p);
bool element_is_nan(Element e, const std::byte* p);
// ULPs between a and b: the count of representable values between them (+0 and -0 are 0 apart). Two NaNs are
// 0 apart; a NaN and a number are kNanDistance apart.
inline constexpr uint64_t kNanDistance = UINT64_MAX;
uint64_t ulp_distance(Element e, const std::byte* a, const std::byte* b);

// The largest distances seen over a set of element pairs.
struct Magnitude {
  double max_abs = 0;
  double max_rel = 0;   // |a - b| / |b| over pairs whose reference b is not 0
  uint64_t max_ulp = 0;         // pairs with a NaN or infinity on one side only are counted apart:
  uint64_t elements = 0;        // pairs that differ
  uint64_t nonfinite_pairs = 0; // they have no finite size
  // Adds the pair (a, reference b); returns its ULP distance.
  uint64_t add(Element e, const std::byte* a, const std::byte* b);
};

inline constexpr double kSpreadFactor = 2.0;

struct RegionVerdict {
  std::string status = "match";         // "match", "nondeterministic", "mismatch"
  uint64_t bytes_differing = 0;         // bytes where the judged result and the replays do not all agree
  uint64_t first_difference = 0;        // offset of the first such byte
  uint64_t nondeterministic_bytes = 0;  // bytes where the replays differ from each other
  uint64_t mismatched_bytes = 0;        // bytes of elements outside the set / beyond the spread
  Element element = Element::Bytes;     // the interpretation the magnitudes use
  bool element_inferred = false;
  Magnitude replay_spread;              // between every two replays
  Magnitude difference;                 // the judged result against its nearest replay, where it equals none
  uint64_t elements_beyond_spread = 0;
};

// `judged` and every replay must have the same size. No replays: every difference is impossible to judge and
// the region is compared with nothing (match). One replay: the deterministic rule only.
RegionVerdict classify_region(std::span<const std::byte> judged, const std::vector<std::span<const std::byte>>& replays,
                              Element known = Element::Infer);

// The interpretation `classify_region` infers for the differing elements (F32, BF16 or F16; Bytes when the
// region is shorter than two bytes or nothing differs).
Element infer_element(std::span<const std::byte> judged, const std::vector<std::span<const std::byte>>& replays);

// "mismatch" over "nondeterministic" over "match".
std::string worse_status(const std::string& a, const std::string& b);

}  // namespace rpl::capture
