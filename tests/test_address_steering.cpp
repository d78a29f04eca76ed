// Address steering for VA-faithful replay (capture/address_steering.hpp): the steering verdicts with a
// fake mapper, then the real mmap path on this machine (no GPU needed: steering happens before hsa_init).
// (Reservation planning itself is capture::plan_reservations, tested with the capture format.)
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <map>

#include "capture/address_steering.hpp"

namespace rpl {
namespace {

using namespace capture;

// A fake address space: `taken` is what the process already maps; `hint_only` models Linux < 4.17.
struct FakeSpace {
  std::map<uint64_t, uint64_t> taken;  // base -> size
  bool hint_only = false;
  int other_error = 0;
  std::vector<std::pair<uint64_t, uint64_t>> unmapped;

  bool overlaps(uint64_t a, uint64_t s) const {
    for (auto [b, n] : taken)
      if (b < a + s && a < b + n) return true;
    return false;
  }
  PlaceholderMapper mapper() {
    PlaceholderMapper m;
    m.map = [this](uint64_t a, uint64_t s, int& err) -> uint64_t {
      if (other_error) {
        err = other_error;
        return 0;
      }
      if (overlaps(a, s)) {
        if (hint_only) {
          taken[0x7000'0000'0000] = s;
          return 0x7000'0000'0000;
        }
        err = EEXIST;
        return 0;
      }
      taken[a] = s;
      return a;
    };
    m.unmap = [this](uint64_t a, uint64_t s) {
      unmapped.emplace_back(a, s);
      taken.erase(a);
    };
    m.describe = [](uint64_t, uint64_t) { return std::string("7f0000000000-7f0000100000 r-xp ... libfoo.so"); };
    return m;
  }
};

TEST(ApertureSteering, PlacesPlaceholdersAndRemovesExactlyThose) {
  FakeSpace space;
  space.taken[0x500000] = 0x1000;  // something of the runner's own
  {
    ApertureSteering steering(space.mapper());
    const auto& results = steering.place({{0x100000, 0x2000, {1}}, {0x500000, 0x1000, {2}}});
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].outcome, SteerOutcome::Placed);
    EXPECT_EQ(results[1].outcome, SteerOutcome::Occupied);
    EXPECT_EQ(results[1].occupant, "7f0000000000-7f0000100000 r-xp ... libfoo.so");
    EXPECT_TRUE(space.taken.count(0x100000));
  }  // destructor: removes the placeholder it placed, never the occupant
  ASSERT_EQ(space.unmapped.size(), 1u);
  EXPECT_EQ(space.unmapped[0].first, 0x100000u);
  EXPECT_EQ(space.unmapped[0].second, 0x2000u);
  EXPECT_TRUE(space.taken.count(0x500000));
}

TEST(ApertureSteering, AnOccupiedRangeIsFatalAndNamesTheOccupantAndRegions) {
  FakeSpace space;
  space.taken[0x500000] = 0x1000;
  ApertureSteering steering(space.mapper());
  const auto v = judge_steering(steering.place({{0x4ff000, 0x3000, {4, 5}}}));
  ASSERT_EQ(v.fatal.size(), 1u);
  EXPECT_NE(v.fatal[0].find("0x4ff000-0x502000"), std::string::npos) << v.fatal[0];
  EXPECT_NE(v.fatal[0].find("regions 4,5"), std::string::npos) << v.fatal[0];
  EXPECT_NE(v.fatal[0].find("libfoo.so"), std::string::npos) << v.fatal[0];
  EXPECT_TRUE(v.warnings.empty());
}

TEST(ApertureSteering, AKernelThatTreatsTheFlagAsAHintIsDetectedAndUndone) {
  FakeSpace space;
  space.hint_only = true;
  space.taken[0x100000] = 0x1000;
  ApertureSteering steering(space.mapper());
  const auto v = judge_steering(steering.place({{0x100000, 0x1000, {1}}, {0x100000, 0x1000, {2}}}));
  EXPECT_EQ(steering.results()[0].outcome, SteerOutcome::NotHonoured);
  EXPECT_FALSE(space.taken.count(0x7000'0000'0000)) << "the misplaced mapping is removed at once";
  EXPECT_TRUE(v.fatal.empty());
  ASSERT_EQ(v.warnings.size(), 1u) << "said once, not per range";
  EXPECT_NE(v.warnings[0].find("MAP_FIXED_NOREPLACE"), std::string::npos);
}

TEST(ApertureSteering, OtherFailuresAreWarnings) {
  FakeSpace space;
  space.other_error = ENOMEM;
  ApertureSteering steering(space.mapper());
  const auto v = judge_steering(steering.place({{0x100000, 0x1000, {1}}}));
  EXPECT_TRUE(v.fatal.empty());
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_NE(v.warnings[0].find("region 1"), std::string::npos) << v.warnings[0];
}

TEST(ApertureSteering, OverlappingMapsLinesAreFound) {
  const std::string maps =
      "00400000-00452000 r-xp 00000000 08:02 173521 /usr/bin/app\n"
      "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
      "garbage\n";
  EXPECT_EQ(overlapping_mappings(maps, 0x451000, 0x2000), "00400000-00452000 r-xp 00000000 08:02 173521 /usr/bin/app");
  EXPECT_EQ(overlapping_mappings(maps, 0x452000, 0x1000), "");
}

std::string fmt_hex(uint64_t v) {
  char text[32];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(v));
  return text;
}

// The real system calls: a range this process maps is reported as occupied; a free one is placed and
// released again.
TEST(ApertureSteering, RealMmapPlacesFreeRangesAndReportsOccupiedOnes) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  void* mine = mmap(nullptr, 4 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mine, MAP_FAILED);
  const uint64_t occupied = reinterpret_cast<uint64_t>(mine);
  munmap(reinterpret_cast<void*>(occupied + 2 * page), 2 * page);  // the upper half is free again
  {
    ApertureSteering steering(system_placeholder_mapper());
    const auto& r = steering.place({{occupied, page, {1}}, {occupied + 2 * page, 2 * page, {2}}});
    EXPECT_EQ(r[0].outcome, SteerOutcome::Occupied);
    EXPECT_NE(r[0].occupant.find(fmt_hex(occupied)), std::string::npos) << r[0].occupant;
    EXPECT_EQ(r[1].outcome, SteerOutcome::Placed);
  }
  // Released: mapping the upper half again at exactly that address works.
  void* again = mmap(reinterpret_cast<void*>(occupied + 2 * page), 2 * page, PROT_READ,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  EXPECT_EQ(again, reinterpret_cast<void*>(occupied + 2 * page));
  munmap(mine, 4 * page);
}

}  // namespace
}  // namespace rpl
