#include "model/compact_columns.hpp"

#include <algorithm>
#include <climits>
#include <vector>

namespace rpl::detail {

bool NarrowInt64Column::fits(int64_t v) const {
  int64_t offset = 0;
  return !__builtin_sub_overflow(v, base_, &offset) && offset >= INT32_MIN && offset <= INT32_MAX;
}

void NarrowInt64Column::widen() {
  wide_.reserve(std::max(narrow_.capacity(), narrow_.size() + 1));
  for (int32_t offset : narrow_) wide_.push_back(base_ + offset);
  narrow_.clear();
  narrow_.shrink_to_fit();
  wide_mode_ = true;
}

void NarrowInt64Column::push_back(int64_t v) {
  if (wide_mode_) return wide_.push_back(v);
  if (narrow_.empty()) base_ = v;
  if (fits(v)) return narrow_.push_back(static_cast<int32_t>(v - base_));
  widen();
  wide_.push_back(v);
}

void NarrowInt64Column::set(std::size_t i, int64_t v) {
  if (!wide_mode_ && !fits(v)) widen();
  if (wide_mode_) wide_[i] = v;
  else narrow_[i] = static_cast<int32_t>(v - base_);
}

void NarrowInt64Column::resize(std::size_t n) {
  if (!wide_mode_ && narrow_.empty()) base_ = 0;
  if (!wide_mode_ && n > narrow_.size() && !fits(0)) widen();  // new values are 0
  if (wide_mode_) wide_.resize(n);
  else narrow_.resize(n, static_cast<int32_t>(-base_));
}

void NarrowInt64Column::clear() {
  narrow_.clear(), wide_.clear(), narrow_.shrink_to_fit(), wide_.shrink_to_fit();
  wide_mode_ = false;
  base_ = 0;
}

void BlockJumpColumn::truncate(std::size_t n) {
  if (n >= size_) return;
  const std::size_t blocks = (n + 63) >> kBlockBits;
  first_.resize(blocks), mask_.resize(blocks), jump_at_.resize(blocks);
  std::size_t kept = 0;
  if (blocks > 0) {
    if (n & 63) mask_.back() &= (uint64_t{1} << (n & 63)) - 1;
    kept = jump_at_.back() + static_cast<std::size_t>(__builtin_popcountll(mask_.back()));
  }
  jump_value_.resize(kept);
  size_ = n;
  last_ = n > 0 ? (*this)[n - 1] : 0;
}

void AffineInt64Column::make_jumps() {
  // The stride of the jumps column: the most common difference between neighbours among the first values
  // (the first two may straddle a jump).
  std::vector<int64_t> differences;
  for (std::size_t i = 1; i < std::min<std::size_t>(size_, 4096); ++i)
    differences.push_back(static_cast<int64_t>(static_cast<uint64_t>((*this)[i]) - static_cast<uint64_t>((*this)[i - 1])));
  std::sort(differences.begin(), differences.end());
  int64_t stride = stride_;
  for (std::size_t i = 0, best = 0; i < differences.size();) {
    std::size_t j = i;
    while (j < differences.size() && differences[j] == differences[i]) ++j;
    if (j - i > best) best = j - i, stride = differences[i];
    i = j;
  }
  jumps_.set_stride(stride);
  jumps_.reserve(std::max(reserved_, size_));
  for (std::size_t i = 0; i < size_; ++i) jumps_.push_back((*this)[i]);
  exceptions_.clear();
  mode_ = Mode::Jumps;
}

void AffineInt64Column::make_steps() {
  const std::size_t n = size();
  steps_.reserve(std::max(reserved_, n));
  for (std::size_t i = 0; i < n; ++i) steps_.push_back((*this)[i]);
  exceptions_.clear();
  jumps_.clear();
  mode_ = Mode::Steps;
}

void AffineInt64Column::make_narrow() {
  dense_.reserve(std::max(reserved_, steps_.size()));
  for (std::size_t i = 0; i < steps_.size(); ++i) dense_.push_back(steps_[i]);
  steps_.clear();
  mode_ = Mode::Narrow;
}

void AffineInt64Column::after_exception() {
  if (mode_ == Mode::Affine && too_many(exceptions_.size())) make_jumps();
  if (mode_ == Mode::Jumps && too_many_jumps()) make_steps();
  if (mode_ == Mode::Steps && too_many(steps_.listed())) make_narrow();
}

void AffineInt64Column::push_back(int64_t v) {
  if (mode_ == Mode::Narrow) return dense_.push_back(v);
  if (mode_ == Mode::Jumps) {
    jumps_.push_back(v);
    return after_exception();
  }
  if (mode_ == Mode::Steps) {
    steps_.push_back(v);
    return after_exception();
  }
  const std::size_t i = size_++;
  if (i == 0) base_ = v;
  // The stride comes from the first two values (wrapping: any difference is a stride).
  else if (i == 1) stride_ = static_cast<int64_t>(static_cast<uint64_t>(v) - static_cast<uint64_t>(base_));
  if (v == predicted(i)) return;
  exceptions_.set(i, v);
  after_exception();
}

void AffineInt64Column::set(std::size_t i, int64_t v) {
  if (mode_ == Mode::Narrow) return dense_.set(i, v);
  if (mode_ == Mode::Jumps) {
    if (jumps_[i] == v) return;
    make_steps();  // a value rewritten in place: held as steps from now on
  }
  if (mode_ == Mode::Steps) {
    steps_.set(i, v);
    return after_exception();
  }
  if (v == predicted(i)) return exceptions_.erase(i);
  exceptions_.set(i, v);
  after_exception();
}

void AffineInt64Column::resize(std::size_t n) {
  if (mode_ == Mode::Narrow) return dense_.resize(n);
  if (mode_ == Mode::Jumps && n <= jumps_.size()) return jumps_.truncate(n);
  if (mode_ == Mode::Steps) return steps_.resize(n);
  if (mode_ == Mode::Affine && n <= size_) {
    exceptions_.truncate(n);
    size_ = n;
    if (size_ <= 1) stride_ = 0;  // the next values set the stride again
    if (size_ == 0) base_ = 0;
    return;
  }
  while (size() < n) push_back(0);
}

void AffineInt64Column::clear() {
  *this = AffineInt64Column();
}


}  // namespace rpl::detail
