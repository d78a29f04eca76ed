#pragma once
// Exact medians per group of integer values that can be read again (the trace's columns, a spilled column)
// instead of held: issue 32, the kernel statistics and the per-kernel slack held 8 bytes per dispatch for their
// medians. A first pass counts each group and finds its minimum and maximum; each later pass narrows, for the
// two middle ranks of every group, the range of values that holds the rank with a histogram of the values in
// the range, and once few values remain in a range, collects them and selects. The result is the median a
// sort would give (the mean of the two middle values for an even count), in a few passes: a histogram of B
// buckets divides the range by B per pass, and a range of one value ends at once.
//
// Memory: per group a few counters, per unfinished rank one histogram (kHistogramBudget bytes in all) and at
// most kCollectBudget values collected in all, whatever the number of values.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace rpl::analysis {

class GroupMedians {
 public:
  // `collect_budget`: values collected per pass in all (tests set it low to exercise the histograms).
  explicit GroupMedians(std::size_t groups, std::size_t collect_budget = kCollectBudget)
      : collect_budget_(collect_budget), count_(groups, 0), min_(groups), max_(groups), median_(groups, 0) {}

  // `replay(add)` must call add(group, value) once per value, the same values in every call (any order).
  template <typename Replay>
  void compute(Replay replay) {
    replay([&](std::size_t g, int64_t v) { add(g, v); });
    select(replay);
  }

  // The first pass by hand (a caller that produces the values once anyway): add every value, then select().
  void add(std::size_t g, int64_t v) {
    if (count_[g]++ == 0) min_[g] = max_[g] = v;
    min_[g] = std::min(min_[g], v);
    max_[g] = std::max(max_[g], v);
  }
  template <typename Replay>
  void select(Replay replay) {
    std::vector<Target> targets;
    for (std::size_t g = 0; g < count_.size(); ++g) {
      if (count_[g] == 0) continue;
      // The two middle ranks (the same one for an odd count).
      targets.push_back(Target{g, (count_[g] - 1) / 2, min_[g], max_[g], 0, count_[g]});
      if (count_[g] % 2 == 0) targets.push_back(Target{g, count_[g] / 2, min_[g], max_[g], 0, count_[g]});
    }
    std::vector<std::vector<uint32_t>> of_group(count_.size());
    while (true) {
      std::vector<uint32_t> open;
      for (uint32_t t = 0; t < targets.size(); ++t)
        if (targets[t].low != targets[t].high) open.push_back(t);
      if (open.empty()) break;
      narrow(targets, open, of_group, replay);
    }
    std::vector<uint8_t> seen(count_.size(), 0);
    for (const Target& t : targets) {
      if (!seen[t.group]) median_[t.group] = static_cast<double>(t.low);
      else median_[t.group] = (median_[t.group] + static_cast<double>(t.low)) / 2.0;
      seen[t.group] = 1;
    }
  }

  std::size_t count(std::size_t g) const { return count_[g]; }
  int64_t min(std::size_t g) const { return min_[g]; }
  int64_t max(std::size_t g) const { return max_[g]; }
  double median(std::size_t g) const { return median_[g]; }

 private:
  static constexpr std::size_t kHistogramBudget = std::size_t{16} << 20;  // bytes of counters per pass
  static constexpr std::size_t kCollectBudget = std::size_t{1} << 20;     // values collected per pass

  // The value of rank `rank` (0-based, ascending) of a group lies in [low, high]; `below` values of the group
  // are smaller than low, `inside` lie in the range. Done when low == high.
  struct Target {
    std::size_t group, rank;
    int64_t low, high;
    std::size_t below, inside;
  };

  template <typename Replay>
  void narrow(std::vector<Target>& targets, const std::vector<uint32_t>& open,
              std::vector<std::vector<uint32_t>>& of_group, Replay& replay) {
    const std::size_t collect_cap = std::max<std::size_t>(1, collect_budget_ / open.size());
    const std::size_t buckets =
        std::clamp<std::size_t>(kHistogramBudget / sizeof(uint64_t) / open.size(), 256, std::size_t{1} << 16);
    struct Work {
      bool collect;
      uint64_t width;  // bucket width (histogram)
      std::vector<uint64_t> counts;
      std::vector<int64_t> values;
    };
    std::vector<Work> work(open.size());
    for (auto& list : of_group) list.clear();
    for (std::size_t k = 0; k < open.size(); ++k) {
      const Target& t = targets[open[k]];
      Work& w = work[k];
      w.collect = t.inside <= collect_cap;
      const uint64_t span = static_cast<uint64_t>(t.high) - static_cast<uint64_t>(t.low);  // high - low, no overflow
      w.width = span / buckets + 1;
      if (!w.collect) w.counts.assign(static_cast<std::size_t>(span / w.width) + 1, 0);
      of_group[t.group].push_back(static_cast<uint32_t>(k));
    }
    replay([&](std::size_t g, int64_t v) {
      for (uint32_t k : of_group[g]) {
        const Target& t = targets[open[k]];
        if (v < t.low || v > t.high) continue;
        Work& w = work[k];
        if (w.collect) w.values.push_back(v);
        else ++w.counts[(static_cast<uint64_t>(v) - static_cast<uint64_t>(t.low)) / w.width];
      }
    });
    for (std::size_t k = 0; k < open.size(); ++k) {
      Target& t = targets[open[k]];
      Work& w = work[k];
      const std::size_t within = t.rank - t.below;  // the rank among the range's values
      if (w.collect) {
        std::nth_element(w.values.begin(), w.values.begin() + static_cast<std::ptrdiff_t>(within), w.values.end());
        t.low = t.high = w.values[within];
        continue;
      }
      std::size_t before = 0, b = 0;
      while (before + w.counts[b] <= within) before += w.counts[b++];
      const int64_t low = static_cast<int64_t>(static_cast<uint64_t>(t.low) + b * w.width);
      const uint64_t room = static_cast<uint64_t>(t.high) - static_cast<uint64_t>(low);
      t.high = room < w.width ? t.high : static_cast<int64_t>(static_cast<uint64_t>(low) + (w.width - 1));
      t.low = low;
      t.below += before;
      t.inside = w.counts[b];
    }
  }

  std::size_t collect_budget_;
  std::vector<std::size_t> count_;
  std::vector<int64_t> min_, max_;
  std::vector<double> median_;
};

}  // namespace rpl::analysis
