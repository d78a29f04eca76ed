#pragma once
// Static features of a configuration for the surrogate model: only the parameter values, never a
// measurement. Per parameter its value and log2; per pair of parameters the log2 of their product (tile
// area, threads per block) and of their ratio (tile per thread, work per vector); per parameter again its
// alignment: whether the value is a power of two, and the log2 of its largest power-of-two divisor. GPU kernels
// often run many times slower off a power of two (a block of 96 or 192 threads where 64 and 128 are fast: on the AMD
// convolution spaces of issue 30 such block sizes run up to 106 times the optimum), and splits on the value or its
// log alone set 64 and 128 with their slow neighbours 48 and 96, which the model then ranks slow too. Parameters
// that hold one value over the whole space (Kernel Tuner's GEMM space fixes 5 of its 15: KWG, KWI, STRM, STRN,
// PRECISION) are left out: their features are constant, no tree splits on them, and they cost most of the model's
// time (270 features instead of 130 there: 2 per parameter, 2 per pair, 2 more per parameter for alignment).
#include <string>
#include <vector>

#include "autotune/space.hpp"

namespace rpl::autotune {

class FeatureMap {
 public:
  explicit FeatureMap(const SearchSpace& space);
  std::size_t size() const { return names_.size(); }
  const std::vector<std::string>& names() const { return names_; }
  // Appends the features of configuration `index` to `out`.
  void append(std::size_t index, std::vector<float>& out) const;

 private:
  const SearchSpace& space_;
  std::vector<std::size_t> varying_;  // the parameters with more than one value in the space, in order
  std::vector<std::string> names_;
};

}  // namespace rpl::autotune
