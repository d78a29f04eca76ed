#pragma once
// DispatchTable: the trace's kernel launches, stored by column (issue 32: bounded memory at 100M dispatches).
//
// It reads like a std::vector<Dispatch> whose elements are values: `t.dispatches[i]` and iteration build a
// Dispatch from the columns, and writes go through push_back / set. Bytes per dispatch (12 for a trace in
// time order with consecutive ids, against 88 for an array of Dispatch records; see compact_columns.hpp):
//   start                                  4  (a 32-bit offset from its block's first start; 20 for a start
//                                              more than 2 s from it)
//   duration                               4  (uint32; longer or negative ones in a side list, by index)
//   dispatch id, correlation id            0 + 0 while each column is affine in the index (consecutive ids),
//                                              16 per id that is not; once those are many, 0.31 each plus 8 per
//                                              id off the stride (consecutive ids with jumps, as correlation ids
//                                              with a few API calls between the launches); once the jumps are
//                                              many, 2 each while the ids rise by small steps (16-bit offsets per
//                                              block of 1024), else 4 (or 8)
//   launch: kernel symbol, placement (process, agent, queue, stream, thread) and launch shape (grid, block,
//   LDS, scratch), interned as one triple of interned ids                                   4
// The interned tables hold one entry per distinct combination: a few in real traces (a kernel runs with few
// shapes, from few threads onto few streams), one per dispatch only for a trace whose every launch differs.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

#include "model/compact_columns.hpp"
#include "model/dispatch.hpp"
#include "support/large_vector.hpp"

namespace rpl {

namespace detail {

// Distinct values of a small trivially copyable record, each under a dense 32-bit id (open addressing).
template <typename Key>
class Interner {
 public:
  Index intern(const Key& key);
  const Key& at(Index id) const { return keys_[id]; }
  std::size_t size() const { return keys_.size(); }
  void clear() { keys_.clear(), slots_.clear(); }
  std::size_t bytes() const { return keys_.capacity() * sizeof(Key) + slots_.capacity() * sizeof(Index); }

 private:
  void grow();
  std::vector<Key> keys_;
  std::vector<Index> slots_;  // kNoIndex = empty; size a power of two, at most half full
};

}  // namespace detail

struct DispatchPlacement {
  Index process = kNoIndex, agent = kNoIndex, queue = kNoIndex, stream = kNoIndex;
  uint32_t thread = 0;
  bool operator==(const DispatchPlacement&) const = default;
};

struct DispatchShape {
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  uint32_t lds_bytes = 0, scratch_bytes = 0;
  bool operator==(const DispatchShape&) const = default;
};

// What a dispatch launched, where: one interned entry per distinct triple.
struct DispatchLaunch {
  Index symbol = kNoIndex, placement = kNoIndex, shape = kNoIndex;
  bool operator==(const DispatchLaunch&) const = default;
};

class DispatchTable {
 public:
  class const_iterator;
  using value_type = Dispatch;
  using size_type = std::size_t;

  std::size_t size() const { return start_.size(); }
  bool empty() const { return start_.empty(); }
  Dispatch operator[](std::size_t i) const {
    Dispatch d = launch_dispatch(launch_[i]);
    d.start = start_[i];
    d.end = end_of(i);
    d.dispatch_id = dispatch_id_[i];
    d.correlation_id = correlation_id_[i];
    return d;
  }
  Dispatch front() const { return (*this)[0]; }
  Dispatch back() const { return (*this)[size() - 1]; }

  // Single columns, for loops that read one or two fields of every dispatch.
  TimeNs start_of(std::size_t i) const { return start_[i]; }
  TimeNs end_of(std::size_t i) const {
    const uint32_t d = duration_[i];
    return start_[i] + (d != kLongDuration ? TimeNs{d} : long_duration(i));
  }
  TimeNs duration_of(std::size_t i) const { return end_of(i) - start_[i]; }
  Index symbol_of(std::size_t i) const { return launches_.at(launch_[i]).symbol; }
  int64_t dispatch_id_of(std::size_t i) const { return dispatch_id_[i]; }
  int64_t correlation_id_of(std::size_t i) const { return correlation_id_[i]; }
  // Process, agent, queue, stream and thread together (one interned record), and its fields one by one.
  const DispatchPlacement& placement_of(std::size_t i) const { return placements_.at(launches_.at(launch_[i]).placement); }
  Index process_of(std::size_t i) const { return placement_of(i).process; }
  Index agent_of(std::size_t i) const { return placement_of(i).agent; }
  Index queue_of(std::size_t i) const { return placement_of(i).queue; }
  Index stream_of(std::size_t i) const { return placement_of(i).stream; }
  uint32_t thread_of(std::size_t i) const { return placement_of(i).thread; }
  const DispatchShape& shape_of(std::size_t i) const { return shapes_.at(launches_.at(launch_[i]).shape); }
  // The interned launches: ids in order of first appearance, so that per-launch facts need no per-dispatch array.
  Index launch_of(std::size_t i) const { return launch_[i]; }
  std::size_t launch_count() const { return launches_.size(); }
  const DispatchPlacement& launch_placement(Index launch) const { return placements_.at(launches_.at(launch).placement); }

  void push_back(const Dispatch& d);
  // Appends every dispatch of `from`, each launch (symbol, placement, shape) passed once through `move_launch`
  // (a Dispatch holding only the launch's fields; it returns them as they are to be here): the table becomes what
  // push_back of each moved dispatch gives, ids and interned launches included, without rebuilding each one
  // (model/trace_append.cpp).
  template <typename MoveLaunch>
  void append(const DispatchTable& from, MoveLaunch move_launch) {
    std::vector<Index> launch(from.launches_.size());
    for (Index l = 0; l < launch.size(); ++l) launch[l] = launch_id(move_launch(from.launch_dispatch(l)));
    append_columns(from, launch);
  }
  void set(std::size_t i, const Dispatch& d);  // replaces dispatch i
  // Dispatch i to change in place: `t.dispatches.edit(i)->end = 5;` changes a copy that is written back
  // when the Edit goes out of scope (the end of the statement for a temporary).
  class Edit {
   public:
    Edit(DispatchTable& table, std::size_t i) : table_(table), i_(i), d_(table[i]) {}
    Edit(const Edit&) = delete;
    Edit& operator=(const Edit&) = delete;
    ~Edit() { table_.set(i_, d_); }
    Dispatch* operator->() { return &d_; }
    Dispatch& operator*() { return d_; }

   private:
    DispatchTable& table_;
    std::size_t i_;
    Dispatch d_;
  };
  Edit edit(std::size_t i) { return Edit(*this, i); }
  void reserve(std::size_t n);
  std::size_t capacity() const { return start_.capacity(); }
  void resize(std::size_t n);  // new dispatches are default Dispatch values
  void clear();
  // Heap bytes held (columns and interned tables), for the scaling notes and tests.
  std::size_t bytes() const;

  const_iterator begin() const;
  const_iterator end() const;

 private:
  static constexpr uint32_t kLongDuration = 0xffffffffu;
  TimeNs long_duration(std::size_t i) const;
  void set_duration(std::size_t i, TimeNs duration);
  Index launch_id(const Dispatch& d);  // interns the dispatch's symbol, placement and shape
  // A Dispatch with the launch's fields only (symbol, placement, shape).
  Dispatch launch_dispatch(Index launch) const {
    Dispatch d;
    const DispatchLaunch& l = launches_.at(launch);
    d.symbol = l.symbol;
    const DispatchPlacement& p = placements_.at(l.placement);
    d.process = p.process, d.agent = p.agent, d.queue = p.queue, d.stream = p.stream, d.thread = p.thread;
    const DispatchShape& s = shapes_.at(l.shape);
    for (int k = 0; k < 3; ++k) d.grid[k] = s.grid[k], d.block[k] = s.block[k];
    d.lds_bytes = s.lds_bytes, d.scratch_bytes = s.scratch_bytes;
    return d;
  }
  void append_columns(const DispatchTable& from, const std::vector<Index>& launch);

  detail::BlockTimeColumn start_;
  LargeVector<uint32_t> duration_;
  detail::SparseOverrides<TimeNs> long_durations_;  // by index: durations that kLongDuration marks
  detail::AffineInt64Column dispatch_id_, correlation_id_;
  LargeVector<Index> launch_;  // into launches_
  detail::Interner<DispatchLaunch> launches_;
  detail::Interner<DispatchPlacement> placements_;
  detail::Interner<DispatchShape> shapes_;
};

// Iterates by value: `for (const Dispatch& d : t.dispatches)` binds each value for its iteration.
class DispatchTable::const_iterator {
 public:
  using iterator_concept = std::random_access_iterator_tag;
  using iterator_category = std::input_iterator_tag;  // its reference is a value, not a Dispatch&
  using value_type = Dispatch;
  using difference_type = std::ptrdiff_t;
  using reference = Dispatch;
  using pointer = void;

  const_iterator() = default;
  const_iterator(const DispatchTable* table, std::size_t i) : table_(table), i_(i) {}
  Dispatch operator*() const { return (*table_)[i_]; }
  Dispatch operator[](difference_type n) const { return (*table_)[i_ + static_cast<std::size_t>(n)]; }
  const_iterator& operator++() { return ++i_, *this; }
  const_iterator operator++(int) { const_iterator c = *this; ++i_; return c; }
  const_iterator& operator--() { return --i_, *this; }
  const_iterator operator--(int) { const_iterator c = *this; --i_; return c; }
  const_iterator& operator+=(difference_type n) { return i_ += static_cast<std::size_t>(n), *this; }
  const_iterator& operator-=(difference_type n) { return i_ -= static_cast<std::size_t>(n), *this; }
  friend const_iterator operator+(const_iterator it, difference_type n) { return it += n; }
  friend const_iterator operator+(difference_type n, const_iterator it) { return it += n; }
  friend const_iterator operator-(const_iterator it, difference_type n) { return it -= n; }
  friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
    return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
  }
  friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.i_ == b.i_; }
  friend auto operator<=>(const const_iterator& a, const const_iterator& b) { return a.i_ <=> b.i_; }
  std::size_t index() const { return i_; }

 private:
  const DispatchTable* table_ = nullptr;
  std::size_t i_ = 0;
};

inline DispatchTable::const_iterator DispatchTable::begin() const { return {this, 0}; }
inline DispatchTable::const_iterator DispatchTable::end() const { return {this, size()}; }

// The reader's reservation, for a table as for a vector (the columns ask for huge pages themselves).
inline void reserve_with_huge_pages(DispatchTable& t, std::size_t n) { t.reserve(n); }

}  // namespace rpl
