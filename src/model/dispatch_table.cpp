#include "model/dispatch_table.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace rpl {
namespace detail {

namespace {
// A 64-bit mix of the key's bytes (the records are small and have no padding).
template <typename Key>
uint64_t hash_key(const Key& key) {
  static_assert(std::has_unique_object_representations_v<Key>);
  uint32_t words[sizeof(Key) / 4];
  std::memcpy(words, &key, sizeof(Key));
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (uint32_t w : words) h = (h ^ w) * 0xff51afd7ed558ccdull, h ^= h >> 32;
  return h;
}
}  // namespace

template <typename Key>
void Interner<Key>::grow() {
  slots_.assign(std::max<std::size_t>(16, slots_.size() * 2), kNoIndex);
  const std::size_t mask = slots_.size() - 1;
  for (Index id = 0; id < keys_.size(); ++id) {
    std::size_t s = hash_key(keys_[id]) & mask;
    while (slots_[s] != kNoIndex) s = (s + 1) & mask;
    slots_[s] = id;
  }
}

template <typename Key>
Index Interner<Key>::intern(const Key& key) {
  if ((keys_.size() + 1) * 2 > slots_.size()) grow();
  const std::size_t mask = slots_.size() - 1;
  std::size_t s = hash_key(key) & mask;
  for (; slots_[s] != kNoIndex; s = (s + 1) & mask)
    if (keys_[slots_[s]] == key) return slots_[s];
  const Index id = static_cast<Index>(keys_.size());
  keys_.push_back(key);
  slots_[s] = id;
  return id;
}

template class Interner<DispatchLaunch>;
template class Interner<DispatchPlacement>;
template class Interner<DispatchShape>;

}  // namespace detail

namespace {
DispatchPlacement placement_record(const Dispatch& d) { return {d.process, d.agent, d.queue, d.stream, d.thread}; }
DispatchShape shape_record(const Dispatch& d) {
  DispatchShape s;
  for (int k = 0; k < 3; ++k) s.grid[k] = d.grid[k], s.block[k] = d.block[k];
  s.lds_bytes = d.lds_bytes, s.scratch_bytes = d.scratch_bytes;
  return s;
}
}  // namespace

TimeNs DispatchTable::long_duration(std::size_t i) const { return *long_durations_.find(i); }

void DispatchTable::set_duration(std::size_t i, TimeNs duration) {
  if (duration >= 0 && duration < TimeNs{kLongDuration}) {
    if (duration_[i] == kLongDuration) long_durations_.erase(i);
    duration_[i] = static_cast<uint32_t>(duration);
    return;
  }
  duration_[i] = kLongDuration;
  long_durations_.set(i, duration);
}

Index DispatchTable::launch_id(const Dispatch& d) {
  return launches_.intern({d.symbol, placements_.intern(placement_record(d)), shapes_.intern(shape_record(d))});
}

void DispatchTable::push_back(const Dispatch& d) {
  start_.push_back(d.start);
  duration_.push_back(0);
  set_duration(duration_.size() - 1, d.end - d.start);
  dispatch_id_.push_back(d.dispatch_id);
  correlation_id_.push_back(d.correlation_id);
  launch_.push_back(launch_id(d));
}

// `from`'s launches were interned here in their id order, which is the order of their first dispatches: the ids
// are those push_back of each dispatch would have given.
void DispatchTable::append_columns(const DispatchTable& from, const std::vector<Index>& launch) {
  for (std::size_t i = 0; i < from.size(); ++i) {
    start_.push_back(from.start_[i]);
    duration_.push_back(0);
    set_duration(duration_.size() - 1, from.duration_of(i));
    dispatch_id_.push_back(from.dispatch_id_[i]);
    correlation_id_.push_back(from.correlation_id_[i]);
    launch_.push_back(launch[from.launch_[i]]);
  }
}

void DispatchTable::set(std::size_t i, const Dispatch& d) {
  start_.set(i, d.start);
  set_duration(i, d.end - d.start);
  dispatch_id_.set(i, d.dispatch_id);
  correlation_id_.set(i, d.correlation_id);
  launch_[i] = launch_id(d);
}

void DispatchTable::reserve(std::size_t n) {
  start_.reserve(n), duration_.reserve(n), dispatch_id_.reserve(n), correlation_id_.reserve(n);
  launch_.reserve(n);
}

void DispatchTable::resize(std::size_t n) {
  if (n <= size()) {
    start_.resize(n), duration_.resize(n), dispatch_id_.resize(n), correlation_id_.resize(n);
    launch_.resize(n);
    long_durations_.truncate(n);
    return;
  }
  const Dispatch fresh;
  while (size() < n) push_back(fresh);
}

void DispatchTable::clear() {
  start_.clear(), duration_.clear(), long_durations_.clear(), dispatch_id_.clear(), correlation_id_.clear();
  launch_.clear(), launches_.clear(), placements_.clear(), shapes_.clear();
}

std::size_t DispatchTable::bytes() const {
  return start_.bytes() + duration_.capacity() * sizeof(uint32_t) +
         long_durations_.bytes() + dispatch_id_.bytes() + correlation_id_.bytes() +
         launch_.capacity() * sizeof(Index) + launches_.bytes() + placements_.bytes() + shapes_.bytes();
}

}  // namespace rpl
