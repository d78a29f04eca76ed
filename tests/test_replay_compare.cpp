// The replay's verdict on a region (capture/replay_compare.hpp), without a GPU: nondeterministic bytes told
// apart from wrong results, and the size of differences in fp32, fp16 and bf16.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <cmath>
#include <cstring>
#include <random>

#include "capture/element_types.hpp"
#include "capture/replay_compare.hpp"

namespace rpl::capture {
namespace {

using Bytes = std::vector<std::byte>;

Bytes f32(const std::vector<float>& v) {
  Bytes b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

Bytes u16(const std::vector<uint16_t>& v) {
  Bytes b(v.size() * 2);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

uint16_t bf16_of(float x) { return uint16_t(std::bit_cast<uint32_t>(x) >> 16); }

std::vector<std::span<const std::byte>> spans(const std::vector<Bytes>& v) {
  std::vector<std::span<const std::byte>> out;
  for (const auto& b : v) out.emplace_back(b);
  return out;
}

// Sums of the same terms in different orders: what split-K and float atomics produce run to run.
std::vector<float> sums_in_order(unsigned seed, std::size_t outputs = 64, std::size_t terms = 512) {
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<std::vector<float>> parts(outputs, std::vector<float>(terms));
  for (auto& p : parts)
    for (auto& x : p) x = value(rng);
  std::mt19937 order(seed);
  std::vector<float> out(outputs);
  for (std::size_t o = 0; o < outputs; ++o) {
    std::shuffle(parts[o].begin(), parts[o].end(), order);
    float s = 0;
    for (float x : parts[o]) s += x;
    out[o] = s;
  }
  return out;
}

TEST(ReplayCompare, IdenticalResultsMatch) {
  const Bytes a = f32({1, 2, 3});
  RegionVerdict v = classify_region(a, spans({a, a}));
  EXPECT_EQ(v.status, "match");
  EXPECT_EQ(v.bytes_differing, 0u);
  EXPECT_EQ(v.mismatched_bytes, 0u);
}

TEST(ReplayCompare, EmptyRegionsAndNoReplaysAreMatches) {
  const Bytes empty;
  EXPECT_EQ(classify_region(empty, spans({empty, empty})).status, "match");
  EXPECT_EQ(classify_region(f32({1}), {}).status, "match");
}

TEST(ReplayCompare, OneReplayMakesEveryDifferenceAMismatch) {
  const Bytes capture = f32({1, 2, 3}), replay = f32({1, std::nextafter(2.0f, 3.0f), 3});
  RegionVerdict v = classify_region(capture, spans({replay}));
  EXPECT_EQ(v.status, "mismatch");
  EXPECT_EQ(v.first_difference, 4u);
  EXPECT_EQ(v.nondeterministic_bytes, 0u);
  EXPECT_EQ(v.element, Element::F32);
  EXPECT_TRUE(v.element_inferred);
  EXPECT_EQ(v.difference.max_ulp, 1u);
}

TEST(ReplayCompare, SplitKReorderNoiseIsNondeterministic) {
  const Bytes capture = f32(sums_in_order(1)), r1 = f32(sums_in_order(2)), r2 = f32(sums_in_order(3));
  ASSERT_NE(r1, r2) << "the orders must give different sums for the test to mean anything";
  ASSERT_NE(capture, r1);
  RegionVerdict v = classify_region(capture, spans({r1, r2}));
  EXPECT_EQ(v.status, "nondeterministic");
  EXPECT_GT(v.nondeterministic_bytes, 0u);
  EXPECT_EQ(v.mismatched_bytes, 0u);
  EXPECT_EQ(v.element, Element::F32);
  EXPECT_TRUE(v.element_inferred);
  EXPECT_GT(v.replay_spread.max_ulp, 0u);
  EXPECT_LT(v.replay_spread.max_abs, 1e-4);
  EXPECT_LT(v.difference.max_abs, 1e-4);
}

TEST(ReplayCompare, AWrongWriteIsAMismatchEvenWhereOtherBytesAreNondeterministic) {
  std::vector<float> captured = sums_in_order(1);
  captured[10] = 1000.0f;  // a real wrong result, in a region that also carries reorder noise
  const Bytes r1 = f32(sums_in_order(2)), r2 = f32(sums_in_order(3));
  RegionVerdict v = classify_region(f32(captured), spans({r1, r2}));
  EXPECT_EQ(v.status, "mismatch");
  EXPECT_EQ(v.elements_beyond_spread, 1u);
  EXPECT_EQ(v.mismatched_bytes, 4u);
  EXPECT_GT(v.nondeterministic_bytes, 0u);
  EXPECT_GT(v.difference.max_abs, 900.0);
}

TEST(ReplayCompare, ADifferenceLargerThanTheReplaysOwnSpreadIsAMismatch) {
  // The replays differ by 1 ULP in element 0; the capture differs by 100 ULP in element 1.
  const float x = 1.0f, y = 3.0f;
  float y_off = y;
  for (int i = 0; i < 100; ++i) y_off = std::nextafter(y_off, 10.0f);
  const Bytes r1 = f32({x, y}), r2 = f32({std::nextafter(x, 2.0f), y});
  RegionVerdict within = classify_region(f32({std::nextafter(x, 0.0f), std::nextafter(y, 10.0f)}), spans({r1, r2}),
                                         Element::F32);
  EXPECT_EQ(within.status, "nondeterministic") << "1 ULP off where the replays vary by 1 ULP";
  RegionVerdict beyond = classify_region(f32({x, y_off}), spans({r1, r2}), Element::F32);
  EXPECT_EQ(beyond.status, "mismatch");
  EXPECT_EQ(beyond.difference.max_ulp, 100u);
  EXPECT_EQ(beyond.replay_spread.max_ulp, 1u);
  EXPECT_FALSE(beyond.element_inferred);
}

TEST(ReplayCompare, ADeterministicRegionAcceptsNoDifference) {
  const Bytes r = f32({1, 2, 3});
  RegionVerdict v = classify_region(f32({1, 2, std::nextafter(3.0f, 4.0f)}), spans({r, r, r}));
  EXPECT_EQ(v.status, "mismatch");
  EXPECT_EQ(v.nondeterministic_bytes, 0u);
}

TEST(ReplayCompare, ACaptureEqualToOneOfTheVaryingReplaysIsNondeterministic) {
  const Bytes a = f32({1, 2}), b = f32({1, 2.5f});
  RegionVerdict v = classify_region(a, spans({a, b}));
  EXPECT_EQ(v.status, "nondeterministic");
  EXPECT_EQ(v.mismatched_bytes, 0u);
  EXPECT_EQ(v.difference.elements, 0u) << "nothing deviates from every replay";
}

TEST(ReplayCompare, RawBytesAreAcceptedOnlyInsideTheVaryingSet) {
  // A counter byte varies between replays; another byte differs deterministically. Bytes: no float type.
  const Bytes r1{std::byte{1}, std::byte{7}, std::byte{9}}, r2{std::byte{2}, std::byte{7}, std::byte{9}};
  EXPECT_EQ(classify_region(Bytes{std::byte{3}, std::byte{7}, std::byte{9}}, spans({r1, r2}), Element::Bytes).status,
            "nondeterministic");
  RegionVerdict v = classify_region(Bytes{std::byte{3}, std::byte{8}, std::byte{9}}, spans({r1, r2}), Element::Bytes);
  EXPECT_EQ(v.status, "mismatch");
  EXPECT_EQ(v.mismatched_bytes, 1u);
}

TEST(ReplayCompare, SparseDifferencesInALargeRegionAreAllFound) {
  // Equal 4 KiB blocks are skipped whole: differences on both sides of block boundaries must still count.
  std::vector<float> base(1 << 18);
  for (std::size_t i = 0; i < base.size(); ++i) base[i] = float(i % 97) * 0.5f + 1.0f;
  std::vector<float> r1 = base, r2 = base, judged = base;
  r2[1023] = std::nextafter(r2[1023], 1e9f);  // the last element of the first block varies
  r2[1024] = std::nextafter(r2[1024], 1e9f);  // the first of the second
  judged[200000] = 12345.0f;                  // a wrong value far away
  RegionVerdict v = classify_region(f32(judged), spans({f32(r1), f32(r2)}), Element::F32);
  EXPECT_EQ(v.status, "mismatch");
  EXPECT_EQ(v.first_difference, 1023u * 4);
  EXPECT_EQ(v.replay_spread.elements, 2u);
  EXPECT_EQ(v.elements_beyond_spread, 1u);
  EXPECT_EQ(v.mismatched_bytes, 4u);
  EXPECT_EQ(v.bytes_differing, 5u) << "the low byte at 1023 and at 1024, three bytes of 42.5 -> 12345 at 200000";
}

TEST(ReplayCompare, UlpDistanceInEachFormat) {
  const Bytes a = f32({1.0f}), b = f32({std::nextafter(std::nextafter(1.0f, 2.0f), 2.0f)});
  EXPECT_EQ(ulp_distance(Element::F32, a.data(), b.data()), 2u);
  const Bytes pz = f32({0.0f}), nz = f32({-0.0f}), tiny = f32({-std::numeric_limits<float>::denorm_min()});
  EXPECT_EQ(ulp_distance(Element::F32, pz.data(), nz.data()), 0u);
  EXPECT_EQ(ulp_distance(Element::F32, pz.data(), tiny.data()), 1u) << "across zero";
  const Bytes neg = f32({-1.0f}), pos = f32({1.0f});
  EXPECT_EQ(ulp_distance(Element::F32, neg.data(), pos.data()), 2u * 0x3f80'0000u);
  // bf16: 1.0 is 0x3f80, the next one 0x3f81 (1.0078125)
  const Bytes h = u16({0x3f80, 0x3f81, 0xbf80});
  EXPECT_EQ(ulp_distance(Element::BF16, h.data(), h.data() + 2), 1u);
  EXPECT_DOUBLE_EQ(element_value(Element::BF16, h.data() + 2), 1.0078125);
  EXPECT_DOUBLE_EQ(element_value(Element::BF16, h.data() + 4), -1.0);
  EXPECT_EQ(ulp_distance(Element::BF16, h.data(), h.data() + 4), 2u * 0x3f80u);
  // fp16: 1.0 is 0x3c00, the next one 0x3c01 (1 + 2^-10); 0x0001 the smallest subnormal; 0x7c00 infinity
  const Bytes g = u16({0x3c00, 0x3c01, 0x0001, 0x7c00, 0xc000});
  EXPECT_DOUBLE_EQ(element_value(Element::F16, g.data()), 1.0);
  EXPECT_DOUBLE_EQ(element_value(Element::F16, g.data() + 2), 1.0 + std::ldexp(1.0, -10));
  EXPECT_DOUBLE_EQ(element_value(Element::F16, g.data() + 4), std::ldexp(1.0, -24));
  EXPECT_TRUE(std::isinf(element_value(Element::F16, g.data() + 6)));
  EXPECT_DOUBLE_EQ(element_value(Element::F16, g.data() + 8), -2.0);
  EXPECT_EQ(ulp_distance(Element::F16, g.data(), g.data() + 2), 1u);
}

TEST(ReplayCompare, MagnitudesGiveAbsoluteRelativeAndUlpErrors) {
  const Bytes a = f32({1.5f}), b = f32({1.0f});
  Magnitude m;
  m.add(Element::F32, a.data(), b.data());
  EXPECT_DOUBLE_EQ(m.max_abs, 0.5);
  EXPECT_DOUBLE_EQ(m.max_rel, 0.5);
  EXPECT_EQ(m.max_ulp, 0x0040'0000u);
  const Bytes z = f32({0.0f}), w = f32({0.25f});
  m.add(Element::F32, w.data(), z.data());
  EXPECT_DOUBLE_EQ(m.max_rel, 0.5) << "no relative error against a zero reference";
  EXPECT_EQ(m.elements, 2u);
}

TEST(ReplayCompare, NaNHandling) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Bytes n1 = f32({nan}), n2 = f32({-nan}), one = f32({1.0f});
  EXPECT_EQ(ulp_distance(Element::F32, n1.data(), n2.data()), 0u) << "two NaNs are the same result";
  EXPECT_EQ(ulp_distance(Element::F32, n1.data(), one.data()), kNanDistance);
  Magnitude m;
  m.add(Element::F32, n1.data(), one.data());
  EXPECT_EQ(m.nonfinite_pairs, 1u);
  EXPECT_EQ(m.max_ulp, 0u);
  EXPECT_EQ(m.max_abs, 0.0) << "kept out of the maxima";
  // A NaN where the replays vary only by rounding is a mismatch...
  const Bytes r1 = f32({1.0f, 2.0f}), r2 = f32({std::nextafter(1.0f, 2.0f), 2.0f});
  RegionVerdict v = classify_region(f32({1.0f, nan}), spans({r1, r2}), Element::F32);
  EXPECT_EQ(v.status, "mismatch");
  EXPECT_EQ(v.difference.nonfinite_pairs, 1u);
  // ...and nondeterministic where the replays themselves give a NaN or a number.
  const Bytes q1 = f32({1.0f, nan}), q2 = f32({std::nextafter(1.0f, 2.0f), 2.0f});
  EXPECT_EQ(classify_region(f32({1.0f, 2.0f}), spans({q1, q2}), Element::F32).status, "nondeterministic");
  EXPECT_EQ(classify_region(f32({1.0f, -nan}), spans({q1, q2}), Element::F32).status, "nondeterministic")
      << "another NaN where a replay gave a NaN";
  // NaN payloads that differ are different bytes but the same value: still within spread.
  const Bytes p1 = f32({nan, 1.0f}), p2 = f32({nan, std::nextafter(1.0f, 2.0f)});
  EXPECT_EQ(classify_region(f32({-nan, 1.0f}), spans({p1, p2}), Element::F32).status, "nondeterministic");
}

TEST(ReplayCompare, Bf16NoiseIsInferredAsBf16) {
  std::vector<uint16_t> a(64), b(64), c(64);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = b[i] = c[i] = bf16_of(0.5f + float(i) * 0.01f);
  b[5] += 1, c[5] += 2, c[8] -= 1;   // odd and even positions: fp32 would see sign/exponent-sized jumps
  b[9] += 1, c[10] += 1;
  RegionVerdict v = classify_region(u16(a), spans({u16(b), u16(c)}));
  EXPECT_EQ(v.element, Element::BF16);
  EXPECT_TRUE(v.element_inferred);
  EXPECT_EQ(v.status, "nondeterministic");
  EXPECT_LE(v.replay_spread.max_ulp, 2u);
}

TEST(ReplayCompare, Fp16NoiseIsInferredAsFp16WhereBf16ValuesWouldBeImplausible) {
  // fp16 values around 0.01 (0x2000 ~ 0.0078): as bf16 they would be about 1e-19.
  std::vector<uint16_t> a(32), b(32);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = b[i] = uint16_t(0x2000 + i * 3);
  std::vector<uint16_t> c = b;
  b[3] += 1, c[4] += 1, b[7] += 1, c[6] -= 1;
  RegionVerdict v = classify_region(u16(a), spans({u16(b), u16(c)}));
  EXPECT_EQ(v.element, Element::F16);
  EXPECT_EQ(v.status, "nondeterministic");
  EXPECT_EQ(infer_element(u16(a), spans({u16(b), u16(c)})), Element::F16);
}

TEST(ReplayCompare, AKnownTypeIsUsedAsGiven) {
  const Bytes capture = f32(sums_in_order(1)), r1 = f32(sums_in_order(2)), r2 = f32(sums_in_order(3));
  RegionVerdict v = classify_region(capture, spans({r1, r2}), Element::F32);
  EXPECT_EQ(v.element, Element::F32);
  EXPECT_FALSE(v.element_inferred);
  EXPECT_EQ(v.status, "nondeterministic");
}

TEST(ReplayCompare, SignatureTypesMapOntoTheComparison) {
  EXPECT_EQ(comparison_element(*pointee_element_type("float const*")), Element::F32);
  EXPECT_EQ(comparison_element(*pointee_element_type("__nv_bfloat16*")), Element::BF16);
  EXPECT_EQ(comparison_element(*pointee_element_type("__half*")), Element::F16);
  EXPECT_EQ(comparison_element(*pointee_element_type("int*")), Element::Bytes) << "integers compare as raw bytes";
  EXPECT_EQ(comparison_element(ElementType{}), Element::Infer) << "unknown: inferred";
  EXPECT_EQ(comparison_element(ElementType{"f32", 4, 2}), Element::Infer) << "a pointer into the middle of an element";
}

TEST(ReplayCompare, WorseStatusRanksMismatchOverNondeterministicOverMatch) {
  EXPECT_EQ(worse_status("match", "nondeterministic"), "nondeterministic");
  EXPECT_EQ(worse_status("mismatch", "nondeterministic"), "mismatch");
  EXPECT_EQ(worse_status("match", "match"), "match");
}

}  // namespace
}  // namespace rpl::capture
