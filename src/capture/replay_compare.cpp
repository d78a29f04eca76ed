#include "capture/replay_compare.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <tuple>

namespace rpl::capture {
namespace {

bool is_float(Element e) { return e == Element::F32 || e == Element::F16 || e == Element::BF16; }

uint32_t bits_of(Element e, const std::byte* p) {
  if (e == Element::F32) {
    uint32_t b;
    std::memcpy(&b, p, 4);
    return b;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return h;
}

uint32_t sign_bit(Element e) { return e == Element::F32 ? 0x8000'0000u : 0x8000u; }

// Sign-magnitude bits onto a line where neighbouring floats are neighbouring integers (+0 and -0 both at 0).
int64_t ordered(Element e, uint32_t bits) {
  const uint32_t s = sign_bit(e);
  return (bits & s) ? -int64_t(bits & ~s) : int64_t(bits);
}

bool is_nonfinite(Element e, const std::byte* p) { return !std::isfinite(element_value(e, p)); }

bool same_bytes(const std::byte* a, const std::byte* b, std::size_t n) { return std::memcmp(a, b, n) == 0; }

// Every replay equal to the first at [offset, offset + n).
bool replays_agree(const std::vector<std::span<const std::byte>>& replays, std::size_t offset, std::size_t n) {
  for (std::size_t j = 1; j < replays.size(); ++j)
    if (!same_bytes(replays[j].data() + offset, replays[0].data() + offset, n)) return false;
  return true;
}

bool equals_some_replay(std::span<const std::byte> judged, const std::vector<std::span<const std::byte>>& replays,
                        std::size_t offset, std::size_t n) {
  for (const auto& r : replays)
    if (same_bytes(judged.data() + offset, r.data() + offset, n)) return true;
  return false;
}

// Calls f(offset) for every element of size `size` where the judged result and the replays do not all agree.
template <typename F>
void for_each_differing_element(std::span<const std::byte> judged, const std::vector<std::span<const std::byte>>& replays,
                                std::size_t size, F&& f) {
  const std::size_t count = judged.size() / size;
  constexpr std::size_t kBlock = 4096;  // a multiple of every element size: equal blocks are skipped whole
  for (std::size_t e = 0; e < count;) {
    const std::size_t off = e * size;
    const std::size_t block = std::min(kBlock, (count - e) * size);
    if (off % kBlock == 0 && block == kBlock && same_bytes(judged.data() + off, replays[0].data() + off, block) &&
        replays_agree(replays, off, block)) {
      e += kBlock / size;
      continue;
    }
    if (!same_bytes(judged.data() + off, replays[0].data() + off, size) || !replays_agree(replays, off, size)) f(off);
    ++e;
  }
}

bool plausible(double v) { return v == 0 || (std::isfinite(v) && std::fabs(v) >= 1e-6 && std::fabs(v) <= 1e6); }

}  // namespace

const char* element_name(Element e) {
  switch (e) {
    case Element::Infer: return "infer";
    case Element::Bytes: return "bytes";
    case Element::F32: return "f32";
    case Element::F16: return "f16";
    case Element::BF16: return "bf16";
  }
  return "bytes";
}

std::size_t element_size(Element e) { return e == Element::F32 ? 4 : (e == Element::F16 || e == Element::BF16) ? 2 : 1; }

double element_value(Element e, const std::byte* p) {
  const uint32_t b = bits_of(e, p);
  switch (e) {
    case Element::F32: return std::bit_cast<float>(b);
    case Element::BF16: return std::bit_cast<float>(b << 16);
    case Element::F16: {
      const double sign = (b & 0x8000u) ? -1.0 : 1.0;
      const int exponent = int((b >> 10) & 0x1f);
      const uint32_t mantissa = b & 0x3ffu;
      if (exponent == 0) return sign * std::ldexp(double(mantissa), -24);
      if (exponent == 31) return mantissa ? std::nan("") : sign * INFINITY;
      return sign * std::ldexp(double(mantissa | 0x400u), exponent - 25);
    }
    default: return double(std::to_integer<unsigned>(*p));
  }
}

bool element_is_nan(Element e, const std::byte* p) { return std::isnan(element_value(e, p)); }

uint64_t ulp_distance(Element e, const std::byte* a, const std::byte* b) {
  const bool na = element_is_nan(e, a), nb = element_is_nan(e, b);
  if (na || nb) return na && nb ? 0 : kNanDistance;
  const int64_t d = ordered(e, bits_of(e, a)) - ordered(e, bits_of(e, b));
  return uint64_t(d < 0 ? -d : d);
}

uint64_t Magnitude::add(Element e, const std::byte* a, const std::byte* b) {
  const uint64_t ulp = ulp_distance(e, a, b);
  if (ulp == 0) return 0;
  ++elements;
  // A NaN or an infinity against something else has no finite size: counted, kept out of the maxima.
  if (ulp == kNanDistance || is_nonfinite(e, a) || is_nonfinite(e, b)) {
    ++nonfinite_pairs;
    return kNanDistance;
  }
  const double va = element_value(e, a), vb = element_value(e, b);
  const double abs = std::fabs(va - vb);
  max_abs = std::max(max_abs, abs);
  if (vb != 0) max_rel = std::max(max_rel, abs / std::fabs(vb));
  max_ulp = std::max(max_ulp, ulp);
  return ulp;
}

Element infer_element(std::span<const std::byte> judged, const std::vector<std::span<const std::byte>>& replays) {
  if (replays.empty() || judged.size() < 2) return Element::Bytes;
  // Under the right type the differences are small; the wrong one splits or merges elements and sees sign and
  // exponent bits change. The replays' own differences are the evidence where there are any (a wrong value in
  // the judged result would otherwise pull the choice towards a narrower type); else the judged result's.
  // fp16 and bf16 always score the same ULPs: their values' plausibility decides, bf16 (the common training
  // type) on a tie.
  bool replays_vary = false;
  for (std::size_t j = 1; j < replays.size() && !replays_vary; ++j)
    replays_vary = !same_bytes(replays[j].data(), replays[0].data(), judged.size());
  std::tuple<uint64_t, uint64_t, int> best{UINT64_MAX, UINT64_MAX, -1};
  Element chosen = Element::Bytes;
  const Element candidates[] = {Element::F32, Element::BF16, Element::F16};
  for (int i = 0; i < 3; ++i) {
    const Element e = candidates[i];
    const std::size_t size = element_size(e);
    if (judged.size() < size) continue;
    uint64_t worst = 0, implausible = 0;
    bool seen = false;
    for_each_differing_element(judged, replays, size, [&](std::size_t off) {
      for (std::size_t j = 0; j < replays.size(); ++j) {
        const std::byte* against = replays_vary ? replays[0].data() + off : judged.data() + off;
        if (replays_vary && j == 0) continue;
        seen = true;
        worst = std::max(worst, ulp_distance(e, against, replays[j].data() + off));
        implausible += !plausible(element_value(e, replays[j].data() + off));
      }
      implausible += !plausible(element_value(e, replays_vary ? replays[0].data() + off : judged.data() + off));
    });
    if (!seen) continue;
    std::tuple<uint64_t, uint64_t, int> score{worst, implausible, i};
    if (score < best) best = score, chosen = e;
  }
  return chosen;
}

RegionVerdict classify_region(std::span<const std::byte> judged, const std::vector<std::span<const std::byte>>& replays,
                              Element known) {
  RegionVerdict v;
  if (replays.empty() || judged.empty()) return v;
  const std::size_t n = judged.size();
  bool identical = true;
  for (const auto& r : replays) identical = identical && same_bytes(judged.data(), r.data(), n);
  if (identical) return v;

  // Bytes: which vary between replays, which differ at all.
  std::vector<bool> varies(n, false);
  for (std::size_t k = 0; k < n; ++k) {
    if (k % 4096 == 0 && n - k >= 4096 && same_bytes(judged.data() + k, replays[0].data() + k, 4096) &&
        replays_agree(replays, k, 4096)) {
      k += 4095;
      continue;
    }
    const std::byte first = replays[0][k];
    bool vary = false;
    for (std::size_t j = 1; j < replays.size() && !vary; ++j) vary = replays[j][k] != first;
    varies[k] = vary;
    if (vary || judged[k] != first) {
      if (v.bytes_differing++ == 0) v.first_difference = k;
      v.nondeterministic_bytes += vary;
    }
  }
  v.element = known == Element::Infer ? infer_element(judged, replays) : known;
  v.element_inferred = known == Element::Infer && v.element != Element::Bytes;
  if (element_size(v.element) > n) v.element = Element::Bytes, v.element_inferred = false;
  const bool region_varies = v.nondeterministic_bytes > 0;

  // A byte of the judged result that equals no replay's is acceptable only where the replays vary.
  auto judge_bytes = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to; ++k)
      if (!equals_some_replay(judged, replays, k, 1) && !varies[k]) ++v.mismatched_bytes;
  };
  const std::size_t size = element_size(v.element);
  const std::size_t whole = is_float(v.element) ? n / size * size : 0;
  if (is_float(v.element)) {
    struct Deviation {
      uint64_t ulp;
      double abs;
    };
    std::vector<Deviation> deviations;
    for_each_differing_element(judged.first(whole), replays, size, [&](std::size_t off) {
      for (std::size_t a = 0; a < replays.size(); ++a)
        for (std::size_t b = a + 1; b < replays.size(); ++b)
          v.replay_spread.add(v.element, replays[a].data() + off, replays[b].data() + off);
      if (equals_some_replay(judged, replays, off, size)) return;
      std::size_t nearest = 0;
      uint64_t best = kNanDistance;
      for (std::size_t j = 0; j < replays.size(); ++j) {
        const uint64_t d = ulp_distance(v.element, judged.data() + off, replays[j].data() + off);
        if (j == 0 || d < best) best = d, nearest = j;
      }
      Magnitude one;
      const uint64_t ulp = one.add(v.element, judged.data() + off, replays[nearest].data() + off);
      v.difference.add(v.element, judged.data() + off, replays[nearest].data() + off);
      deviations.push_back({ulp, one.max_abs});
    });
    for (const Deviation& d : deviations) {
      const bool within =
          region_varies &&
          (d.ulp == kNanDistance ? v.replay_spread.nonfinite_pairs > 0
                                 : (double(d.ulp) <= kSpreadFactor * double(v.replay_spread.max_ulp) ||
                                    d.abs <= kSpreadFactor * v.replay_spread.max_abs));
      if (!within) ++v.elements_beyond_spread, v.mismatched_bytes += size;
    }
  }
  judge_bytes(whole, n);
  v.status = v.mismatched_bytes ? "mismatch" : "nondeterministic";
  return v;
}

std::string worse_status(const std::string& a, const std::string& b) {
  auto rank = [](const std::string& s) { return s == "mismatch" ? 2 : s == "nondeterministic" ? 1 : 0; };
  return rank(a) >= rank(b) ? a : b;
}

}  // namespace rpl::capture
