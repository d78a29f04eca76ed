#pragma once
// Maps rocpd ids (int64, unique within one process) to model values while reading.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace rpl::rocpd {

// rocpd id -> model value for one process: a sorted vector, plus a direct table when the ids are
// dense (rocprofv3's kernel, queue and stream ids usually are), and a last-hit cache (consecutive rows
// usually name the same agent, queue and stream).
template <class V>
class IdMap {
 public:
  void add(int64_t id, V value) { entries_.emplace_back(id, value); }
  // Sorts; of duplicate ids the first added wins.
  void finalize() {
    std::stable_sort(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    entries_.erase(std::unique(entries_.begin(), entries_.end(),
                               [](const auto& a, const auto& b) { return a.first == b.first; }),
                   entries_.end());
    build_direct();
  }
  // Adds one id after finalize(), keeping the order (rare: placeholders for missing rows).
  void insert(int64_t id, V value) {
    auto it = std::lower_bound(entries_.begin(), entries_.end(), id,
                               [](const auto& e, int64_t key) { return e.first < key; });
    entries_.insert(it, {id, value});
    last_ = 0;
    build_direct();
  }
  const V* find(int64_t id) const {
    if (last_ < entries_.size() && entries_[last_].first == id) return &entries_[last_].second;
    std::size_t position;
    if (!direct_.empty()) {
      uint64_t offset = static_cast<uint64_t>(id) - static_cast<uint64_t>(entries_.front().first);
      if (offset >= direct_.size() || direct_[offset] == kAbsent) return nullptr;
      position = direct_[offset];
    } else {
      auto it = std::lower_bound(entries_.begin(), entries_.end(), id,
                                 [](const auto& e, int64_t key) { return e.first < key; });
      if (it == entries_.end() || it->first != id) return nullptr;
      position = static_cast<std::size_t>(it - entries_.begin());
    }
    last_ = position;
    return &entries_[position].second;
  }
  bool empty() const { return entries_.empty(); }
  const std::vector<std::pair<int64_t, V>>& entries() const { return entries_; }

 private:
  static constexpr uint32_t kAbsent = 0xffffffffu;
  void build_direct() {
    direct_.clear();
    if (entries_.empty()) return;
    uint64_t span = static_cast<uint64_t>(entries_.back().first) - static_cast<uint64_t>(entries_.front().first) + 1;
    if (span > 4 * entries_.size() + 64) return;  // sparse: binary search
    direct_.assign(span, kAbsent);
    for (std::size_t i = 0; i < entries_.size(); ++i)
      direct_[static_cast<uint64_t>(entries_[i].first) - static_cast<uint64_t>(entries_.front().first)] =
          static_cast<uint32_t>(i);
  }

  std::vector<std::pair<int64_t, V>> entries_;
  std::vector<uint32_t> direct_;  // id - first id -> position in entries_
  mutable std::size_t last_ = 0;
};

}  // namespace rpl::rocpd
