#include "capture/reservation_plan.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <numeric>

#include "support/errors.hpp"

namespace rpl::capture {
namespace {

bool power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
uint64_t align_down(uint64_t v, uint64_t a) { return v & ~(a - 1); }
uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

}  // namespace

std::vector<PlannedReservation> plan_reservations(const Manifest& m, uint64_t granularity, uint64_t alignment) {
  if (!power_of_two(granularity) || !power_of_two(alignment) || alignment < granularity)
    throw Error(ExitCode::InputInvalid, fmt::format("allocation granularity {} and reservation alignment {} must be powers "
                                                    "of two, the alignment at least the granularity",
                                                    granularity, alignment));
  std::vector<std::size_t> order(m.regions.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return m.regions[a].address < m.regions[b].address; });
  std::vector<PlannedMapping> mappings;
  for (std::size_t i : order) {
    const Region& r = m.regions[i];
    if (!reserved_by_replay(r)) continue;
    uint64_t begin = align_down(r.address, granularity), end = align_up(r.address + r.size, granularity);
    if (!mappings.empty() && begin <= mappings.back().address + mappings.back().size) {
      PlannedMapping& last = mappings.back();
      last.size = std::max(last.address + last.size, end) - last.address;
      last.regions.push_back(i);
    } else {
      mappings.push_back({begin, end - begin, {i}});
    }
  }
  std::vector<PlannedReservation> reservations;
  for (PlannedMapping& map : mappings) {
    uint64_t begin = align_down(map.address, alignment), end = align_up(map.address + map.size, alignment);
    if (!reservations.empty() && begin <= reservations.back().address + reservations.back().size) {
      PlannedReservation& last = reservations.back();
      last.size = std::max(last.address + last.size, end) - last.address;
      last.mappings.push_back(std::move(map));
    } else {
      reservations.push_back({begin, end - begin, {std::move(map)}});
    }
  }
  return reservations;
}

}  // namespace rpl::capture
