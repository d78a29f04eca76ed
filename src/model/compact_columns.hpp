#pragma once
// Compact columns of 64-bit values for DispatchTable (issue 32: 100M dispatches in 2 GB). Each gives back
// exactly the values written, whatever they are; the bytes per value depend only on how regular they are:
//   NarrowInt64Column  4 bytes while every value is within int32 of the first, else 8
//   AffineInt64Column  0 bytes for values base + stride * index (consecutive ids), 16 per value that is not;
//                      once those are more than 1/32 of the values, a BlockJumpColumn (0.31 bytes, plus 8 per
//                      value off the stride: consecutive ids with a jump now and then, as correlation ids with
//                      a few API calls between the launches); once its jumps are more than 1/5 of the values,
//                      a BlockStepColumn (2 bytes: ids that rise by small steps), and once its listed values
//                      are more than 1/32, a NarrowInt64Column (4 or 8)
//   BlockJumpColumn    per block of 64 values its first (8 bytes), a bit per value (8 bytes) and where its jumps
//                      begin (4 bytes): 0.31 bytes per value, plus 8 per value that is not the one before it plus
//                      the stride
//   BlockTimeColumn    4 bytes (a 32-bit offset from its block's first value, blocks of 4096 values: start
//                      times in trace order), 20 per value more than 2^31 away from its block's first
//   BlockStepColumn    2 bytes (a 16-bit offset from its block's first value, blocks of 1024 values), 18 per
//                      value more than 2^15 away from it
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

// Values held as offsets of type `Offset` from the first value of their block of 2^kBlockBits (each block's base
// is 8 bytes); a value further from its block's base is listed apart. Random access costs two loads.
template <typename Offset, unsigned kBlockBits>
class BlockOffsetColumn {
 public:
  int64_t operator[](std::size_t i) const {
    const Offset o = offset_[i];
    if (o == kListed) [[unlikely]]
      return *listed_.find(i);
    return base_[i >> kBlockBits] + (static_cast<int64_t>(o) - kBias);
  }
  std::size_t size() const { return offset_.size(); }
  bool empty() const { return offset_.empty(); }
  void push_back(int64_t v) {
    if ((offset_.size() & ((std::size_t{1} << kBlockBits) - 1)) == 0) base_.push_back(v);
    offset_.push_back(0);
    set(offset_.size() - 1, v);
  }
  void set(std::size_t i, int64_t v) {
    int64_t offset = 0;
    const bool fits = !__builtin_sub_overflow(v, base_[i >> kBlockBits], &offset) && offset >= -kBias &&
                      offset < kBias - 1;  // kBias - 1 would be kListed
    if (offset_[i] == kListed) listed_.erase(i);
    if (fits) {
      offset_[i] = static_cast<Offset>(offset + kBias);
      return;
    }
    offset_[i] = kListed;
    listed_.set(i, v);
  }
  void reserve(std::size_t n) { offset_.reserve(n), base_.reserve((n >> kBlockBits) + 1); }
  std::size_t capacity() const { return offset_.capacity(); }
  void resize(std::size_t n) {  // new values are 0
    if (n > size()) {
      while (size() < n) push_back(0);
      return;
    }
    offset_.resize(n);
    base_.resize((n + (std::size_t{1} << kBlockBits) - 1) >> kBlockBits);
    listed_.truncate(n);
  }
  void clear() {
    offset_.clear(), base_.clear(), listed_.clear();
    offset_.shrink_to_fit(), base_.shrink_to_fit();
  }
  std::size_t bytes() const {
    return offset_.capacity() * sizeof(Offset) + base_.capacity() * sizeof(int64_t) + listed_.bytes();
  }
  std::size_t listed() const { return listed_.size(); }

 private:
  static constexpr int64_t kBias = int64_t{1} << (8 * sizeof(Offset) - 1);  // offset = value - base + kBias
  static constexpr Offset kListed = static_cast<Offset>(~Offset{0});        // the value is in listed_
  LargeVector<Offset> offset_;
  LargeVector<int64_t> base_;  // per block: its first value written
  SparseOverrides<int64_t> listed_;
};

// Time stamps (ns): a block of 4096 of a trace's records spans well under the 2 seconds an offset covers.
using BlockTimeColumn = BlockOffsetColumn<uint32_t, 12>;
// Ids that rise by small steps: 1024 of them within +-32767 of the block's first.
using BlockStepColumn = BlockOffsetColumn<uint16_t, 10>;

// Values that follow a stride from one to the next except at some (jumps): per block of 64, its first value,
// a bit per value that does not follow the one before it, and those values whole. Random access: four loads.
class BlockJumpColumn {
 public:
  static constexpr unsigned kBlockBits = 6;
  void set_stride(int64_t stride) { stride_ = stride; }
  int64_t operator[](std::size_t i) const {
    const std::size_t block = i >> kBlockBits;
    const unsigned j = static_cast<unsigned>(i & 63);
    const uint64_t jumps = mask_[block] & (~uint64_t{0} >> (63 - j));  // the block's jumps at or before i
    if (jumps == 0) return along(first_[block], j);
    const unsigned last_jump = 63 - static_cast<unsigned>(__builtin_clzll(jumps));
    return along(jump_value_[jump_at_[block] + static_cast<unsigned>(__builtin_popcountll(jumps)) - 1], j - last_jump);
  }
  std::size_t size() const { return size_; }
  std::size_t jumps() const { return jump_value_.size(); }
  void push_back(int64_t v) {
    const unsigned j = static_cast<unsigned>(size_++ & 63);
    if (j == 0) {
      first_.push_back(v), mask_.push_back(0), jump_at_.push_back(jump_value_.size());
    } else if (v != along(last_, 1)) {
      mask_.back() |= uint64_t{1} << j;
      jump_value_.push_back(v);
    }
    last_ = v;
  }
  void reserve(std::size_t n) {
    const std::size_t blocks = (n >> kBlockBits) + 1;
    first_.reserve(blocks), mask_.reserve(blocks), jump_at_.reserve(blocks);
  }
  void truncate(std::size_t n);  // drops the values from n on
  void clear() { *this = BlockJumpColumn(); }
  std::size_t bytes() const {
    return first_.capacity() * sizeof(int64_t) + mask_.capacity() * sizeof(uint64_t) +
           jump_at_.capacity() * sizeof(uint32_t) + jump_value_.capacity() * sizeof(int64_t);
  }

 private:
  int64_t along(int64_t from, uint64_t steps) const {  // wrapping, as the affine column's stride
    return static_cast<int64_t>(static_cast<uint64_t>(from) + static_cast<uint64_t>(stride_) * steps);
  }
  int64_t stride_ = 0, last_ = 0;
  std::size_t size_ = 0;
  LargeVector<int64_t> first_;     // per block: its first value
  LargeVector<uint64_t> mask_;     // per block: bit j set when value j is a jump (bit 0 never)
  LargeVector<uint32_t> jump_at_;  // per block: the index of its first jump in jump_value_
  LargeVector<int64_t> jump_value_;
};

// A column of int64 values expected to be affine in the index (ids numbered consecutively, by any stride):
// value i is base + stride * i (wrapping, as unsigned arithmetic), except at the indices listed apart. The
// stride is the difference of the first two values. When the exceptions grow past 1/32 of the values (plus a
// thousand), every value moves into a BlockJumpColumn (the same stride), when its jumps pass 1/5 of the values
// into a BlockStepColumn, and when that one's listed values pass 1/32, into a NarrowInt64Column, for good.
class AffineInt64Column {
 public:
  int64_t operator[](std::size_t i) const {
    if (mode_ == Mode::Jumps) return jumps_[i];
    if (mode_ == Mode::Steps) return steps_[i];
    if (mode_ == Mode::Narrow) return dense_[i];
    if (!exceptions_.empty())
      if (const int64_t* v = exceptions_.find(i)) return *v;
    return predicted(i);
  }
  std::size_t size() const {
    switch (mode_) {
      case Mode::Jumps: return jumps_.size();
      case Mode::Steps: return steps_.size();
      case Mode::Narrow: return dense_.size();
      default: return size_;
    }
  }
  void push_back(int64_t v);
  void set(std::size_t i, int64_t v);
  void reserve(std::size_t n) { reserved_ = n; }  // for the dense columns, if it comes to that
  void resize(std::size_t n);  // new values are 0
  void clear();
  std::size_t bytes() const { return exceptions_.bytes() + jumps_.bytes() + steps_.bytes() + dense_.bytes(); }
  bool dense() const { return mode_ != Mode::Affine; }
  // Whether the values are held as 16-bit steps (2 bytes each) rather than affine or 4- or 8-byte offsets.
  bool in_steps() const { return mode_ == Mode::Steps; }
  // Whether they are held as a stride with jumps (BlockJumpColumn).
  bool in_jumps() const { return mode_ == Mode::Jumps; }

 private:
  enum class Mode : uint8_t { Affine, Jumps, Steps, Narrow };
  int64_t predicted(std::size_t i) const {
    return static_cast<int64_t>(static_cast<uint64_t>(base_) + static_cast<uint64_t>(stride_) * i);
  }
  bool too_many(std::size_t listed) const { return listed > 1024 + size() / 32; }
  bool too_many_jumps() const { return jumps_.jumps() > 1024 + size() / 5; }
  void make_jumps();
  void make_steps();
  void make_narrow();
  void after_exception();
  Mode mode_ = Mode::Affine;
  std::size_t size_ = 0, reserved_ = 0;
  int64_t base_ = 0, stride_ = 0;
  SparseOverrides<int64_t> exceptions_;
  BlockJumpColumn jumps_;
  BlockStepColumn steps_;
  NarrowInt64Column dense_;
};

}  // namespace rpl::detail
