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

void AffineInt64Column::make_dense() {
  dense_.reserve(std::max(reserved_, size_));
  for (std::size_t i = 0; i < size_; ++i) dense_.push_back((*this)[i]);
  exceptions_.clear();
  dense_mode_ = true;
}

void AffineInt64Column::after_exception() {
  if (exceptions_.size() > 1024 + size_ / 32) make_dense();
}

void AffineInt64Column::push_back(int64_t v) {
  if (dense_mode_) return dense_.push_back(v);
  const std::size_t i = size_++;
  if (i == 0) base_ = v;
  // The stride comes from the first two values (wrapping: any difference is a stride).
  else if (i == 1) stride_ = static_cast<int64_t>(static_cast<uint64_t>(v) - static_cast<uint64_t>(base_));
  if (v == predicted(i)) return;
  exceptions_.set(i, v);
  after_exception();
}

void AffineInt64Column::set(std::size_t i, int64_t v) {
  if (dense_mode_) return dense_.set(i, v);
  if (v == predicted(i)) return exceptions_.erase(i);
  exceptions_.set(i, v);
  after_exception();
}

void AffineInt64Column::resize(std::size_t n) {
  if (dense_mode_) return dense_.resize(n);
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

void BlockTimeColumn::push_back(int64_t v) {
  if ((offset_.size() & ((std::size_t{1} << kBlockBits) - 1)) == 0) base_.push_back(v);
  offset_.push_back(0);
  set(offset_.size() - 1, v);
}

void BlockTimeColumn::set(std::size_t i, int64_t v) {
  int64_t offset = 0;
  const bool fits = !__builtin_sub_overflow(v, base_[i >> kBlockBits], &offset) && offset >= -kBias &&
                    offset < kBias - 1;  // kBias - 1 would be kListed
  if (offset_[i] == kListed) listed_.erase(i);
  if (fits) {
    offset_[i] = static_cast<uint32_t>(offset + kBias);
    return;
  }
  offset_[i] = kListed;
  listed_.set(i, v);
}

void BlockTimeColumn::resize(std::size_t n) {
  if (n > size()) {
    while (size() < n) push_back(0);
    return;
  }
  offset_.resize(n);
  base_.resize((n + (std::size_t{1} << kBlockBits) - 1) >> kBlockBits);
  listed_.truncate(n);
}

void BlockTimeColumn::clear() {
  offset_.clear(), base_.clear(), listed_.clear();
  offset_.shrink_to_fit(), base_.shrink_to_fit();
}

}  // namespace rpl::detail
