#include "model/compact_columns.hpp"

#include <climits>

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

void AffineInt64Column::make_steps() {
  steps_.reserve(std::max(reserved_, size_));
  for (std::size_t i = 0; i < size_; ++i) steps_.push_back((*this)[i]);
  exceptions_.clear();
  mode_ = Mode::Steps;
}

void AffineInt64Column::make_narrow() {
  dense_.reserve(std::max(reserved_, steps_.size()));
  for (std::size_t i = 0; i < steps_.size(); ++i) dense_.push_back(steps_[i]);
  steps_.clear();
  mode_ = Mode::Narrow;
}

void AffineInt64Column::after_exception() {
  if (mode_ == Mode::Affine && too_many(exceptions_.size())) make_steps();
  if (mode_ == Mode::Steps && too_many(steps_.listed())) make_narrow();
}

void AffineInt64Column::push_back(int64_t v) {
  if (mode_ == Mode::Narrow) return dense_.push_back(v);
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
  if (mode_ == Mode::Steps) return steps_.resize(n);
  if (n <= size_) {
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
