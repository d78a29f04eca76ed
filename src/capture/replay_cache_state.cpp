#include "capture/replay_cache_state.hpp"

#include <algorithm>
#include <cstring>
#include <map>

#include "capture/reservation_plan.hpp"  // reserved_by_replay

namespace rpl::capture {

std::vector<ByteRange> differing_pages(std::span<const std::byte> before, const std::vector<std::span<const std::byte>>& results,
                                       uint64_t page) {
  std::vector<ByteRange> out;
  for (uint64_t at = 0; at < before.size(); at += page) {
    const uint64_t n = std::min<uint64_t>(page, before.size() - at);
    bool differs = false;
    for (const auto& r : results)
      differs = differs || (r.size() == before.size() && std::memcmp(r.data() + at, before.data() + at, n) != 0);
    if (!differs) continue;
    if (!out.empty() && out.back().offset + out.back().size == at) out.back().size += n;
    else out.push_back({at, n});
  }
  return out;
}

namespace {

// [from, to) less the sorted, disjoint `holes`.
std::vector<ByteRange> subtract(uint64_t from, uint64_t to, const std::vector<ByteRange>& holes) {
  std::vector<ByteRange> out;
  for (const ByteRange& h : holes) {
    const uint64_t hs = h.offset, he = h.offset + h.size;
    if (he <= from || hs >= to) continue;
    if (hs > from) out.push_back({from, hs - from});
    from = std::max(from, he);
  }
  if (from < to) out.push_back({from, to - from});
  return out;
}

}  // namespace

std::vector<RegionRange> parameter_read_set(const Manifest& m, std::span<const std::byte> arguments,
                                            const std::vector<std::vector<ByteRange>>& excluded, uint64_t budget) {
  std::map<uint64_t, std::size_t> by_address;  // region start -> index
  for (std::size_t i = 0; i < m.regions.size(); ++i)
    if (m.regions[i].size && m.regions[i].before && reserved_by_replay(m.regions[i])) by_address[m.regions[i].address] = i;
  std::vector<std::size_t> order;   // regions in the order the arguments first name them
  std::map<std::size_t, uint64_t> lowest;  // region -> lowest offset named
  for (std::size_t at = 0; at + 8 <= arguments.size(); at += 8) {
    uint64_t value = 0;
    std::memcpy(&value, arguments.data() + at, 8);
    auto it = by_address.upper_bound(value);
    if (it == by_address.begin()) continue;
    --it;
    const Region& g = m.regions[it->second];
    if (value - g.address >= g.size) continue;
    auto [slot, inserted] = lowest.try_emplace(it->second, value - g.address);
    if (inserted) order.push_back(it->second);
    else slot->second = std::min(slot->second, value - g.address);
  }
  std::vector<RegionRange> out;
  for (std::size_t i : order) {
    const std::vector<ByteRange> none;
    for (const ByteRange& r : subtract(lowest[i], m.regions[i].size, i < excluded.size() ? excluded[i] : none)) {
      if (budget == 0) return out;
      const uint64_t take = std::min(r.size, budget);
      out.push_back({i, {r.offset, take}});
      budget -= take;
    }
  }
  return out;
}

}  // namespace rpl::capture
