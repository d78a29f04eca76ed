#include "capture/reservation_plan.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <numeric>

#include "support/errors.hpp"

namespace rpl::capture {

std::vector<PlannedRange> plan_reservations(const Manifest& m, uint64_t granularity) {
  if (granularity == 0 || (granularity & (granularity - 1)) != 0)
    throw Error(ExitCode::InputInvalid, fmt::format("allocation granularity {} is not a power of two", granularity));
  std::vector<std::size_t> order(m.regions.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return m.regions[a].address < m.regions[b].address; });
  std::vector<PlannedRange> ranges;
  for (std::size_t i : order) {
    const Region& r = m.regions[i];
    if (!reserved_by_replay(r)) continue;
    uint64_t begin = r.address & ~(granularity - 1);
    uint64_t end = (r.address + r.size + granularity - 1) & ~(granularity - 1);
    if (!ranges.empty() && begin <= ranges.back().address + ranges.back().size) {
      PlannedRange& last = ranges.back();
      last.size = std::max(last.address + last.size, end) - last.address;
      last.regions.push_back(i);
    } else {
      ranges.push_back({begin, end - begin, {i}});
    }
  }
  return ranges;
}

}  // namespace rpl::capture
