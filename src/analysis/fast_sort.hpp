#pragma once
// Linear-time sorts for the shapes of data `analyze` sorts per dispatch (issue 32: at 10M dispatches the
// n log n comparison sorts were a few seconds of CPU). Both give exactly what std::sort gives where the result
// is unique: sort_runs under a strict total order, radix_sort_by_key for keys that identify the order (equal
// keys may end in any order, as with std::sort).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rpl::analysis {

// Sorts [first, last) by `less`, which must be a strict total order (ties broken, e.g. by id), so that the
// result is std::sort's. The ranges sorted per stream are nearly always a few ascending runs back to back (a
// stream's dispatches, then its copies, each in id order): up to kMaxMergedRuns runs are merged in place
// (std::inplace_merge: linear, with a buffer of at most the smaller run); more fall back to std::sort.
template <typename It, typename Less>
void sort_runs(It first, It last, Less less) {
  constexpr std::size_t kMaxMergedRuns = 8;
  if (last - first < 2) return;
  std::array<It, kMaxMergedRuns> run_begin{};
  std::size_t boundaries = 0;
  for (It it = first + 1; it != last; ++it) {
    if (!less(*it, *(it - 1))) continue;
    if (boundaries + 1 == kMaxMergedRuns) {
      std::sort(first, last, less);
      return;
    }
    run_begin[boundaries++] = it;
  }
  for (std::size_t b = 0; b < boundaries; ++b)
    std::inplace_merge(first, run_begin[b], b + 1 < boundaries ? run_begin[b + 1] : last, less);
}

// Sorts `values` ascending by key(value), an unsigned 64-bit key, with a least-significant-digit radix sort
// over the bits in which the keys differ (11-bit digits; a digit that every key shares costs one counting
// pass and no move). Needs a second buffer of the same size while it runs.
template <typename T, typename Key>
void radix_sort_by_key(std::vector<T>& values, Key key) {
  constexpr unsigned kDigitBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
  const std::size_t n = values.size();
  if (n < 2) return;
  uint64_t lo = key(values[0]), hi = lo;
  for (const T& v : values) {
    const uint64_t k = key(v);
    lo = std::min(lo, k);
    hi = std::max(hi, k);
  }
  unsigned digits = 0;
  for (uint64_t span = hi - lo; span != 0; span >>= kDigitBits) ++digits;
  if (digits == 0) return;  // all keys equal: any order is sorted
  std::vector<std::array<std::size_t, kBuckets>> count(digits);
  for (auto& c : count) c.fill(0);
  for (const T& v : values) {
    uint64_t k = key(v) - lo;
    for (unsigned d = 0; d < digits; ++d, k >>= kDigitBits) ++count[d][k & (kBuckets - 1)];
  }
  std::vector<T> other(n);
  for (unsigned d = 0; d < digits; ++d) {
    std::array<std::size_t, kBuckets>& c = count[d];
    if (std::find(c.begin(), c.end(), n) != c.end()) continue;  // a shared digit
    std::size_t sum = 0;
    for (std::size_t& b : c) {
      const std::size_t here = b;
      b = sum;
      sum += here;
    }
    const unsigned shift = d * kDigitBits;
    for (const T& v : values) other[c[((key(v) - lo) >> shift) & (kBuckets - 1)]++] = v;
    values.swap(other);
  }
}

}  // namespace rpl::analysis
