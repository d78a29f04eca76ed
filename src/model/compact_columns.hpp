#pragma once
// Compact columns of 64-bit values for DispatchTable (issue 32: 100M dispatches in 2 GB). Each gives back
// exactly the values written, whatever they are; the bytes per value depend only on how regular they are:
//   NarrowInt64Column  4 bytes while every value is within int32 of the first, else 8
//   AffineInt64Column  0 bytes for values base + stride * index (consecutive ids), 16 per value that is not,
//                      and a NarrowInt64Column once those are more than 1/32 of the values
//   BlockTimeColumn    4 bytes (a 32-bit offset from its block's first value, blocks of 4096 values: start
//                      times in trace order), 20 per value more than 2^31 away from its block's first
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "support/large_vector.hpp"

namespace rpl::detail {

// Values of some indices of a column, by index (sorted): the few that a compact encoding cannot hold.
template <typename T>
class SparseOverrides {
 public:
  const T* find(std::size_t i) const {
    auto it = lower(i);
    return it != items_.end() && it->first == i ? &it->second : nullptr;
  }
  void set(std::size_t i, T v) {
    auto it = lower(i);
    if (it != items_.end() && it->first == i) it->second = v;
    else items_.insert(it, {i, v});  // at the end (no move) when values are written in index order
  }
  void erase(std::size_t i) {
    auto it = lower(i);
    if (it != items_.end() && it->first == i) items_.erase(it);
  }
  void truncate(std::size_t n) { items_.erase(lower(n), items_.end()); }  // drops indices >= n
  void clear() { items_.clear(), items_.shrink_to_fit(); }
  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  std::size_t bytes() const { return items_.capacity() * sizeof(items_[0]); }
  const std::vector<std::pair<std::size_t, T>>& items() const { return items_; }

 private:
  using Items = std::vector<std::pair<std::size_t, T>>;
  typename Items::iterator lower(std::size_t i) {
    if (items_.empty() || items_.back().first < i) return items_.end();  // the common case: appending
    return std::lower_bound(items_.begin(), items_.end(), i, [](const auto& e, std::size_t k) { return e.first < k; });
  }
  typename Items::const_iterator lower(std::size_t i) const {
    if (items_.empty() || items_.back().first < i) return items_.end();
    return std::lower_bound(items_.begin(), items_.end(), i, [](const auto& e, std::size_t k) { return e.first < k; });
  }
  Items items_;
};

// A column of int64 values held as int32 offsets from the first value while they fit.
class NarrowInt64Column {
 public:
  int64_t operator[](std::size_t i) const { return wide_mode_ ? wide_[i] : base_ + narrow_[i]; }
  std::size_t size() const { return wide_mode_ ? wide_.size() : narrow_.size(); }
  void push_back(int64_t v);
  void set(std::size_t i, int64_t v);
  void reserve(std::size_t n) { wide_mode_ ? wide_.reserve(n) : narrow_.reserve(n); }
  void resize(std::size_t n);
  void clear();
  std::size_t bytes() const { return narrow_.capacity() * sizeof(int32_t) + wide_.capacity() * sizeof(int64_t); }

 private:
  bool fits(int64_t v) const;
  void widen();
  bool wide_mode_ = false;  // once a value did not fit: every value in wide_, narrow_ released
  int64_t base_ = 0;
  LargeVector<int32_t> narrow_;
  LargeVector<int64_t> wide_;
};

// A column of int64 values expected to be affine in the index (ids numbered consecutively, by any stride):
// value i is base + stride * i (wrapping, as unsigned arithmetic), except at the indices listed apart. The
// stride is the difference of the first two values. When the exceptions grow past 1/32 of the values (plus a
// thousand), every value moves into a NarrowInt64Column, for good.
class AffineInt64Column {
 public:
  int64_t operator[](std::size_t i) const {
    if (dense_mode_) return dense_[i];
    if (!exceptions_.empty())
      if (const int64_t* v = exceptions_.find(i)) return *v;
    return predicted(i);
  }
  std::size_t size() const { return dense_mode_ ? dense_.size() : size_; }
  void push_back(int64_t v);
  void set(std::size_t i, int64_t v);
  void reserve(std::size_t n) { reserved_ = n; }  // for the dense column, if it comes to that
  void resize(std::size_t n);  // new values are 0
  void clear();
  std::size_t bytes() const { return exceptions_.bytes() + dense_.bytes(); }
  bool dense() const { return dense_mode_; }

 private:
  int64_t predicted(std::size_t i) const {
    return static_cast<int64_t>(static_cast<uint64_t>(base_) + static_cast<uint64_t>(stride_) * i);
  }
  void make_dense();
  void after_exception();
  bool dense_mode_ = false;
  std::size_t size_ = 0, reserved_ = 0;
  int64_t base_ = 0, stride_ = 0;
  SparseOverrides<int64_t> exceptions_;
  NarrowInt64Column dense_;
};

// Time stamps (ns) held as 32-bit offsets from the first value of their block of 4096 (each block's base is
// 8 bytes): a block of a trace's records spans well under 2 seconds; a value further from its block's base
// is listed apart. Random access costs two loads.
class BlockTimeColumn {
 public:
  int64_t operator[](std::size_t i) const {
    const uint32_t o = offset_[i];
    if (o == kListed) [[unlikely]]
      return *listed_.find(i);
    return base_[i >> kBlockBits] + (static_cast<int64_t>(o) - kBias);
  }
  std::size_t size() const { return offset_.size(); }
  bool empty() const { return offset_.empty(); }
  void push_back(int64_t v);
  void set(std::size_t i, int64_t v);
  void reserve(std::size_t n) { offset_.reserve(n), base_.reserve((n >> kBlockBits) + 1); }
  std::size_t capacity() const { return offset_.capacity(); }
  void resize(std::size_t n);  // new values are 0
  void clear();
  std::size_t bytes() const {
    return offset_.capacity() * sizeof(uint32_t) + base_.capacity() * sizeof(int64_t) + listed_.bytes();
  }
  std::size_t listed() const { return listed_.size(); }

 private:
  static constexpr unsigned kBlockBits = 12;
  static constexpr int64_t kBias = int64_t{1} << 31;  // offset = value - base + kBias
  static constexpr uint32_t kListed = 0xffffffffu;    // the value is in listed_
  LargeVector<uint32_t> offset_;
  LargeVector<int64_t> base_;  // per block: its first value written
  SparseOverrides<int64_t> listed_;
};

}  // namespace rpl::detail
