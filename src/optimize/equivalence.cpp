#include "optimize/equivalence.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <span>

#include "capture/replay_compare.hpp"
#include "support/errors.hpp"

namespace rpl::optimize {
namespace fs = std::filesystem;
using capture::Manifest;
using capture::Region;
using nlohmann::json;

namespace {

// Poison written into elements the original kernel wrote: quiet NaNs with a recognisable payload for floats,
// 0xA5 bytes otherwise.
void fill_poison(std::byte* p, const ElementType& t) {
  if (t.name == "f32") { uint32_t v = 0x7FC5A5A5u; std::memcpy(p, &v, 4); return; }
  if (t.name == "f64") { uint64_t v = 0x7FF8A5A5A5A5A5A5ull; std::memcpy(p, &v, 8); return; }
  if (t.name == "f16") { uint16_t v = 0x7E5A; std::memcpy(p, &v, 2); return; }
  if (t.name == "bf16") { uint16_t v = 0x7FC5; std::memcpy(p, &v, 2); return; }
  std::memset(p, 0xA5, t.size);
}

// One sized read: dumps are whole device regions (tens to hundreds of MiB per input), and reading them a character
// at a time through stream iterators took most of the equivalence gate's time (about 1 s per candidate on a small
// kernel, 5 s on a 168 MiB capture, on an H200 host).
std::vector<std::byte> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary | std::ios::ate);
  if (!in) throw Error(ExitCode::InputMissing, fmt::format("cannot read {}", p.string()));
  const std::streamoff size = in.tellg();
  std::vector<std::byte> out(size > 0 ? std::size_t(size) : 0);
  in.seekg(0);
  if (!out.empty() && !in.read(reinterpret_cast<char*>(out.data()), std::streamsize(out.size())))
    throw Error(ExitCode::InputMissing, fmt::format("cannot read {} ({} bytes expected)", p.string(), out.size()));
  return out;
}

template <class F>
void randomise_floats(std::byte* data, uint64_t count, std::mt19937_64& rng) {
  F lo = 0, hi = 0;
  bool any = false;
  for (uint64_t i = 0; i < count; ++i) {
    F v;
    std::memcpy(&v, data + i * sizeof(F), sizeof(F));
    if (!std::isfinite(v)) continue;
    if (!any) lo = hi = v, any = true;
    lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (!any || lo == hi) lo -= 1, hi += 1;
  std::uniform_real_distribution<F> dist(lo, hi);
  for (uint64_t i = 0; i < count; ++i) {
    F v = dist(rng);
    std::memcpy(data + i * sizeof(F), &v, sizeof(F));
  }
}

void shuffle_elements(std::byte* data, uint64_t count, uint64_t size, std::mt19937_64& rng) {
  std::vector<std::byte> tmp(size);
  for (uint64_t i = count; i > 1; --i) {
    uint64_t j = std::uniform_int_distribution<uint64_t>(0, i - 1)(rng);
    if (j == i - 1) continue;
    std::memcpy(tmp.data(), data + (i - 1) * size, size);
    std::memcpy(data + (i - 1) * size, data + j * size, size);
    std::memcpy(data + j * size, tmp.data(), size);
  }
}

// Whether the integer elements are in non-decreasing order (and not all equal): offsets into other arrays, a CSR
// row pointer or segment starts. Shuffled, they describe no valid structure: a row pointer out of order makes rows
// that span most of the matrix, whose sums a correct reordering of the additions cannot match within a tolerance
// set for the real rows (session 18's probe: three warp-per-row SpMV kernels refused so).
template <class I>
bool sorted_as(const std::byte* data, uint64_t count) {
  auto at = [&](uint64_t i) {
    I v;
    std::memcpy(&v, data + i * sizeof(I), sizeof(I));
    return v;
  };
  for (uint64_t i = 1; i < count; ++i)
    if (at(i) < at(i - 1)) return false;
  return at(count - 1) > at(0);
}

bool sorted_integers(const std::byte* data, uint64_t count, const ElementType& t) {
  if (count < 3) return false;
  if (t.name == "i8") return sorted_as<int8_t>(data, count);
  if (t.name == "u8") return sorted_as<uint8_t>(data, count);
  if (t.name == "i16") return sorted_as<int16_t>(data, count);
  if (t.name == "u16") return sorted_as<uint16_t>(data, count);
  if (t.name == "i32") return sorted_as<int32_t>(data, count);
  if (t.name == "u32") return sorted_as<uint32_t>(data, count);
  if (t.name == "i64") return sorted_as<int64_t>(data, count);
  if (t.name == "u64") return sorted_as<uint64_t>(data, count);
  return false;
}

// The distance in representable values between two 16-bit floats (f16 or bf16: both sign and magnitude, so their
// bit patterns order as their values do), from their bytes.
uint64_t ulp_distance_16(const std::byte* a, const std::byte* b) {
  auto key = [](const std::byte* p) {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    const int32_t magnitude = bits & 0x7fff;
    return (bits & 0x8000) ? -magnitude : magnitude;
  };
  const int32_t d = key(a) - key(b);
  return uint64_t(d < 0 ? -d : d);
}

uint64_t ulp_distance(double a, double b, const std::string& type) {
  if (type == "f32") {
    auto key = [](float f) { int32_t i = std::bit_cast<int32_t>(f); return i < 0 ? int64_t(INT32_MIN) - i : int64_t(i); };
    int64_t d = key(float(a)) - key(float(b));
    return uint64_t(d < 0 ? -d : d);
  }
  auto key = [](double f) { int64_t i = std::bit_cast<int64_t>(f); return i < 0 ? INT64_MIN - i : i; };
  __int128 d = __int128(key(a)) - __int128(key(b));
  return uint64_t(d < 0 ? -d : d);
}

double load_float(const std::byte* p, const std::string& type) {
  if (type == "f32") { float f; std::memcpy(&f, p, 4); return f; }
  if (type == "f16") return capture::element_value(capture::Element::F16, p);
  if (type == "bf16") return capture::element_value(capture::Element::BF16, p);
  double d;
  std::memcpy(&d, p, 8);
  return d;
}

}  // namespace

json DeriveSummary::to_json() const {
  return {{"regions_poisoned", regions_poisoned}, {"elements_poisoned", elements_poisoned},
          {"regions_randomised", regions_randomised}, {"elements_randomised", elements_randomised},
          {"regions_kept_sorted", regions_kept_sorted},
          {"bytes_written_by_original", bytes_written_by_original}};
}

DeriveSummary derive_capture(const fs::path& source, const fs::path& target, const DeriveOptions& o) {
  Manifest m = capture::read_manifest(source);
  auto types = region_element_types(source, m, o.source_param_types);
  fs::create_directories(target);
  auto copy_blob = [&](const capture::BlobRef& ref) {
    fs::create_directories((target / ref.file).parent_path());
    fs::copy_file(source / ref.file, target / ref.file, fs::copy_options::overwrite_existing);
  };
  copy_blob(m.code_object);
  copy_blob(m.arguments);
  std::mt19937_64 rng(o.seed);
  DeriveSummary s;
  for (Region& r : m.regions) {
    if (!r.before) { r.after.reset(); continue; }
    std::vector<std::byte> bytes = capture::read_blob(source, *r.before);
    ElementType t = types.count(r.id) ? types[r.id] : ElementType{};
    uint64_t first = t.phase, count = (bytes.size() > first) ? (bytes.size() - first) / t.size : 0;
    std::vector<bool> written;
    if (r.after) {
      std::vector<std::byte> after = capture::read_blob(source, *r.after);
      if (after.size() == bytes.size()) {
        written.assign(count, false);
        for (uint64_t e = 0; e < count; ++e)
          if (std::memcmp(bytes.data() + first + e * t.size, after.data() + first + e * t.size, t.size) != 0) written[e] = true;
        // bytes outside whole elements (the region's head and tail) are compared byte by byte
        for (uint64_t b = 0; b < bytes.size(); ++b)
          if ((b < first || b >= first + count * t.size) && bytes[b] != after[b]) {
            s.bytes_written_by_original += 1;
            if (o.poison_written) bytes[b] = std::byte{0xA5};
          }
      }
    }
    uint64_t n_written = std::count(written.begin(), written.end(), true);
    s.bytes_written_by_original += n_written * t.size;
    if (o.randomise_read && n_written == 0 && types.count(r.id) && t.name != "bytes" && count > 0) {
      std::byte* base = bytes.data() + first;
      if (sorted_integers(base, count, t)) {
        ++s.regions_kept_sorted;
      } else {
        if (t.name == "f32") randomise_floats<float>(base, count, rng);
        else if (t.name == "f64") randomise_floats<double>(base, count, rng);
        else shuffle_elements(base, count, t.size, rng);
        ++s.regions_randomised;
        s.elements_randomised += count;
      }
    }
    if (o.poison_written && n_written > 0) {
      for (uint64_t e = 0; e < count; ++e)
        if (written[e]) fill_poison(bytes.data() + first + e * t.size, t);
      ++s.regions_poisoned;
      s.elements_poisoned += n_written;
    }
    r.before = capture::write_blob(target, capture::region_blob_file(r.id, false), bytes);
    r.after.reset();
  }
  m.vendor["rocm_perf_optimize_derived"] = {{"from", source.string()}, {"poison", o.poison_written},
                                            {"randomised", o.randomise_read}, {"seed", o.seed}};
  capture::write_manifest(target, m);
  return s;
}

const char* to_string(ToleranceScale s) { return s == ToleranceScale::Region ? "region" : "element"; }

namespace {

// `x` rounded up at its second significant digit (a tolerance to quote that still covers x).
double rounded_up(double x) {
  if (!(x > 0) || !std::isfinite(x)) return x;
  const double unit = std::pow(10.0, std::floor(std::log10(x)) - 1);
  return std::ceil(x / unit * (1 - 1e-12)) * unit;
}

// Root mean square of the finite elements of a float region (0 when none).
double rms_of(const std::vector<std::byte>& bytes, const ElementType& t, uint64_t count) {
  double sum = 0;
  uint64_t n = 0;
  for (uint64_t e = 0; e < count; ++e) {
    const double x = load_float(bytes.data() + t.phase + e * t.size, t.name);
    if (std::isfinite(x)) sum += x * x, ++n;
  }
  return n ? std::sqrt(sum / double(n)) : 0;
}

}  // namespace

json DumpComparison::to_json() const {
  json differing = json::array();
  for (const auto& r : regions) {
    if (r.within_tolerance && r.bytes_differing == 0 && r.problem.empty()) continue;
    differing.push_back({{"region", r.region}, {"element", r.element}, {"bytes", r.bytes},
                         {"bytes_differing", r.bytes_differing}, {"elements_differing", r.elements_differing},
                         {"first_difference", r.first_difference}, {"max_abs_error", r.max_abs_error},
                         {"max_rel_error", r.max_rel_error}, {"max_ulp", r.max_ulp}, {"rms_magnitude", r.rms_magnitude},
                         {"within_tolerance", r.within_tolerance}, {"problem", r.problem}});
  }
  return {{"equivalent", equivalent}, {"regions_compared", regions.size()}, {"differing", differing}};
}

DumpComparison compare_dumps(const Manifest& m, const std::map<uint64_t, ElementType>& types, const fs::path& original,
                             const fs::path& candidate, const Tolerance& tol) {
  DumpComparison out;
  for (const Region& region : m.regions) {
    RegionComparison rc;
    rc.region = region.id;
    rc.bytes = region.size;
    std::string file = fmt::format("r{:06d}.bin", region.id);
    if (!fs::exists(original / file) || !fs::exists(candidate / file)) {
      rc.problem = fs::exists(original / file) ? "missing in the candidate's dump" : "missing in the original's dump";
      rc.within_tolerance = false;
      out.equivalent = false;
      out.regions.push_back(rc);
      continue;
    }
    std::vector<std::byte> a = read_file(original / file), b = read_file(candidate / file);
    ElementType t = types.count(region.id) ? types.at(region.id) : ElementType{};
    rc.element = t.name;
    if (a.size() != b.size()) {
      rc.problem = fmt::format("sizes differ ({} vs {} bytes)", a.size(), b.size());
      rc.within_tolerance = false;
    } else if (std::memcmp(a.data(), b.data(), a.size()) != 0) {
      bool first = true;
      for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) {
          if (first) rc.first_difference = i, first = false;
          ++rc.bytes_differing;
        }
      // (half and bfloat16 outputs too: a reordered reduction moves their last bit as it moves a float's)
      bool floats = t.is_float();
      rc.within_tolerance = !tol.exact() && floats;
      uint64_t count = a.size() > t.phase ? (a.size() - t.phase) / t.size : 0;
      if (floats && !tol.exact()) rc.rms_magnitude = rms_of(a, t, count);
      const double floor = tol.scale == ToleranceScale::Region ? rc.rms_magnitude : 0;
      for (uint64_t e = 0; e < count; ++e) {
        const std::byte* pa = a.data() + t.phase + e * t.size;
        const std::byte* pb = b.data() + t.phase + e * t.size;
        if (std::memcmp(pa, pb, t.size) == 0) continue;
        ++rc.elements_differing;
        if (!floats) continue;
        double x = load_float(pa, t.name), y = load_float(pb, t.name);
        if (std::isnan(x) || std::isnan(y)) {
          if (!(std::isnan(x) && std::isnan(y))) rc.within_tolerance = false, rc.max_abs_error = INFINITY;
          continue;
        }
        double abs_err = std::fabs(x - y), rel = x != 0 ? abs_err / std::fabs(x) : (abs_err == 0 ? 0 : INFINITY);
        rc.max_abs_error = std::max(rc.max_abs_error, abs_err);
        rc.max_rel_error = std::max(rc.max_rel_error, rel);
        rc.max_ulp = std::max(rc.max_ulp, t.size == 2 ? ulp_distance_16(pa, pb) : ulp_distance(x, y, t.name));
        if (!(abs_err <= tol.atol + tol.rtol * std::max(std::fabs(x), floor))) rc.within_tolerance = false;
      }
      // bytes outside whole elements must match exactly
      for (std::size_t i = 0; i < a.size(); ++i)
        if ((i < t.phase || i >= t.phase + count * t.size) && a[i] != b[i]) rc.within_tolerance = false;
    }
    if (!rc.within_tolerance) out.equivalent = false;
    out.regions.push_back(rc);
  }
  return out;
}

DumpComparison compare_with_spread(const Manifest& m, const std::map<uint64_t, ElementType>& types,
                                   const std::vector<fs::path>& originals, const fs::path& candidate) {
  DumpComparison out;
  for (const Region& region : m.regions) {
    RegionComparison rc;
    rc.region = region.id;
    rc.bytes = region.size;
    const std::string file = fmt::format("r{:06d}.bin", region.id);
    std::vector<std::vector<std::byte>> runs;
    bool complete = fs::exists(candidate / file);
    for (const fs::path& o : originals) {
      complete = complete && fs::exists(o / file);
      if (complete) runs.push_back(read_file(o / file));
    }
    std::vector<std::byte> judged = complete ? read_file(candidate / file) : std::vector<std::byte>{};
    for (const auto& r : runs) complete = complete && r.size() == judged.size();
    if (!complete) {
      rc.problem = "missing or of another size in a dump";
      rc.within_tolerance = false;
      out.equivalent = false;
      out.regions.push_back(rc);
      continue;
    }
    const capture::Element known = types.count(region.id) ? capture::comparison_element(types.at(region.id))
                                                           : capture::Element::Infer;
    std::vector<std::span<const std::byte>> spans(runs.begin(), runs.end());
    const capture::RegionVerdict v = capture::classify_region(judged, spans, known);
    rc.element = capture::element_name(v.element);
    rc.bytes_differing = v.bytes_differing;
    rc.first_difference = v.first_difference;
    rc.elements_differing = v.difference.elements;
    rc.max_abs_error = v.difference.max_abs;
    rc.max_rel_error = v.difference.max_rel;
    rc.max_ulp = v.difference.max_ulp;
    rc.within_tolerance = v.status != "mismatch";
    if (v.status == "nondeterministic")
      rc.problem = fmt::format("within the original's run-to-run spread ({} ULP, abs {:.3g})", v.replay_spread.max_ulp,
                               v.replay_spread.max_abs);
    else if (v.status == "mismatch")
      // Two replays of a nondeterministic original (float atomics into one sum) underestimate how far another
      // summation order lands (probe 3: correct reorderings of a cancelling 1M-term sum 3 to 34 times the spread
      // away), so the message says which tolerance would admit the result; whether that is right is the user's call.
      rc.problem = fmt::format("beyond the original's run-to-run spread: {} bytes ({} ULP, abs {:.3g} where the original "
                               "varies by {} ULP, abs {:.3g}; if another order of floating-point operations may move it "
                               "this far, --atol {:.2g} admits this difference)",
                               v.mismatched_bytes, v.difference.max_ulp, v.difference.max_abs, v.replay_spread.max_ulp,
                               v.replay_spread.max_abs, rounded_up(v.difference.max_abs));
    if (!rc.within_tolerance) out.equivalent = false;
    out.regions.push_back(rc);
  }
  return out;
}

}  // namespace rpl::optimize
