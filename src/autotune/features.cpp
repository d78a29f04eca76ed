#include "autotune/features.hpp"

#include <bit>
#include <cmath>
#include <utility>

namespace rpl::autotune {
namespace {

// log2 that keeps zero and negative values ordered and finite (parameters like PAD or UNROLL are 0/1).
double signed_log2(double v) { return v >= 0 ? std::log2(1.0 + v) : -std::log2(1.0 - v); }

// The alignment features of a value: whether it is a power of two, and the log2 of its largest power-of-two
// divisor (32 and 96: 5; 64 and 192: 6). (0, -1) for a value that is not a positive whole number.
std::pair<float, float> alignment(double v) {
  if (!(v >= 1 && v < 9.0e18)) return {0.0f, -1.0f};  // also keeps the cast below defined
  const auto u = static_cast<unsigned long long>(v);
  if (v != static_cast<double>(u)) return {0.0f, -1.0f};
  return {(u & (u - 1)) == 0 ? 1.0f : 0.0f, static_cast<float>(std::countr_zero(u))};
}

}  // namespace

FeatureMap::FeatureMap(const SearchSpace& space) : space_(space) {
  const auto& ps = space.parameters();
  for (std::size_t p = 0; p < ps.size(); ++p) {
    bool varies = false;
    for (std::size_t i = 1; i < space.size() && !varies; ++i) varies = space.config(i)[p] != space.config(0)[p];
    if (varies) varying_.push_back(p);
  }
  for (std::size_t p : varying_) {
    names_.push_back(ps[p].name);
    names_.push_back("log2(" + ps[p].name + ")");
  }
  for (std::size_t a = 0; a < varying_.size(); ++a)
    for (std::size_t b = a + 1; b < varying_.size(); ++b) {
      names_.push_back("log2(" + ps[varying_[a]].name + "*" + ps[varying_[b]].name + ")");
      names_.push_back("log2(" + ps[varying_[a]].name + "/" + ps[varying_[b]].name + ")");
    }
  for (std::size_t p : varying_) {
    names_.push_back("pow2(" + ps[p].name + ")");
    names_.push_back("v2(" + ps[p].name + ")");
  }
}

void FeatureMap::append(std::size_t index, std::vector<float>& out) const {
  ConfigView c = space_.config(index);
  const std::size_t n = varying_.size();
  double logs[64];
  for (std::size_t k = 0; k < n; ++k) {
    const double v = space_.value(c, varying_[k]), log_v = signed_log2(v);
    if (k < 64) logs[k] = log_v;
    out.push_back(static_cast<float>(v));
    out.push_back(static_cast<float>(log_v));
  }
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b) {
      const double la = a < 64 ? logs[a] : 0, lb = b < 64 ? logs[b] : 0;
      out.push_back(static_cast<float>(la + lb));
      out.push_back(static_cast<float>(la - lb));
    }
  for (std::size_t p : varying_) {
    const auto [power_of_two, two_adic] = alignment(space_.value(c, p));
    out.push_back(power_of_two);
    out.push_back(two_adic);
  }
}

}  // namespace rpl::autotune
