#include "analysis/run_compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <utility>

namespace rpl::analysis {
namespace {

// Two-sided 95% quantiles of Student's t by degrees of freedom; linear in 1/dof between rows.
double t_critical_95(double dof) {
  static const std::pair<double, double> kTable[] = {
      {1, 12.706}, {2, 4.303},  {3, 3.182},  {4, 2.776},  {5, 2.571},  {6, 2.447},  {7, 2.365},
      {8, 2.306},  {9, 2.262},  {10, 2.228}, {12, 2.179}, {15, 2.131}, {20, 2.086}, {25, 2.060},
      {30, 2.042}, {40, 2.021}, {60, 2.000}, {120, 1.980}};
  if (!(dof > 1)) return kTable[0].second;
  for (std::size_t i = 1; i < std::size(kTable); ++i) {
    if (dof > kTable[i].first) continue;
    const auto [d0, t0] = kTable[i - 1];
    const auto [d1, t1] = kTable[i];
    const double w = (1 / d0 - 1 / dof) / (1 / d0 - 1 / d1);
    return t0 + w * (t1 - t0);
  }
  const double w = 120.0 / dof;  // towards the normal quantile as dof grows
  return 1.960 + w * (1.980 - 1.960);
}

struct MeanSd {
  double mean = 0, sd = 0;
  std::size_t n = 0;
};

MeanSd mean_sd(const std::vector<double>& v) {
  MeanSd m;
  m.n = v.size();
  if (v.empty()) return m;
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  if (v.size() < 2) return m;
  double ss = 0;
  for (double x : v) ss += (x - m.mean) * (x - m.mean);
  m.sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
  return m;
}

std::vector<std::string> shape_texts(const KernelStats& k) {
  std::vector<std::string> out;
  for (const LaunchShape& s : k.shapes) out.push_back(shape_text(s));
  return out;
}

const KernelRoofline* best_point(const std::vector<KernelRoofline>& points, const std::string& name) {
  const KernelRoofline* best = nullptr;
  for (const KernelRoofline& k : points)
    if (k.name == name && (!best || k.point.duration_ns > best->point.duration_ns)) best = &k;
  return best;
}

bool differs(const std::optional<double>& a, const std::optional<double>& b) {
  if (a.has_value() != b.has_value()) return true;
  if (!a) return false;
  const double base = std::max(std::abs(*a), std::abs(*b));
  return base > 0 && std::abs(*b - *a) / base > kRooflineMoveThreshold;
}

void compare_kernels(const CompareSide& a, const CompareSide& b, CompareResult& r) {
  const bool by_runs = a.runtime_per_run_ns.size() >= 2 && b.runtime_per_run_ns.size() >= 2;
  std::map<std::string, KernelChange> by_name;
  auto fill = [&](const CompareSide& side, bool is_a) {
    for (const KernelStats& k : side.stats.kernels) {
      KernelChange& c = by_name[k.name];
      c.name = k.name;
      if (c.mangled_name.empty()) c.mangled_name = k.mangled_name;
      c.runtime_kernel = k.runtime_kernel;
      (is_a ? c.calls_a : c.calls_b) = k.durations.count;
      (is_a ? c.total_a_ns : c.total_b_ns) = k.durations.total_ns;
      (is_a ? c.mean_a_ns : c.mean_b_ns) = k.durations.mean_ns;
      (is_a ? c.shapes_a : c.shapes_b) = shape_texts(k);
    }
    for (const SymbolContribution& p : side.path_contributions) {
      auto it = by_name.find(p.name);
      if (it == by_name.end()) continue;  // a copy, or a kernel the statistics left out
      (is_a ? it->second.path_ns_a : it->second.path_ns_b) = p.time_on_path_ns;
      (is_a ? it->second.path_fraction_a : it->second.path_fraction_b) = p.fraction_of_path;
    }
  };
  fill(a, true);
  fill(b, false);
  for (auto& [name, c] : by_name) {
    c.presence = c.calls_a == 0 ? Presence::OnlyB : c.calls_b == 0 ? Presence::OnlyA : Presence::Both;
    c.shapes_changed = c.presence == Presence::Both && std::set<std::string>(c.shapes_a.begin(), c.shapes_a.end()) !=
                                                           std::set<std::string>(c.shapes_b.begin(), c.shapes_b.end());
    if (by_runs) {
      // clang 15 cannot capture a structured binding, so the lambda takes the name.
      auto per_run = [](const CompareSide& side, const std::string& kernel) {
        auto it = side.kernel_time_per_run_ns.find(kernel);
        return it != side.kernel_time_per_run_ns.end() ? it->second
                                                       : std::vector<double>(side.runtime_per_run_ns.size(), 0.0);
      };
      const MeanSd ma = mean_sd(per_run(a, name)), mb = mean_sd(per_run(b, name));
      c.total_a_ns = ma.mean;
      c.total_b_ns = mb.mean;
      c.test = welch_test(ma.mean, ma.sd, ma.n, mb.mean, mb.sd, mb.n, "runs");
    } else if (c.presence != Presence::Both) {
      c.test.verdict = Significance::Significant;
      c.test.basis = "presence";
    } else {
      const KernelStats* ka = nullptr;
      const KernelStats* kb = nullptr;
      for (const KernelStats& k : a.stats.kernels) ka = k.name == name ? &k : ka;
      for (const KernelStats& k : b.stats.kernels) kb = k.name == name ? &k : kb;
      c.test = welch_test(ka->durations.mean_ns, ka->durations.stddev_ns, ka->durations.count, kb->durations.mean_ns,
                          kb->durations.stddev_ns, kb->durations.count, "calls");
    }
    c.delta_ns = c.total_b_ns - c.total_a_ns;
    if (c.presence == Presence::Both) {
      r.shared_share_a += c.total_a_ns;
      r.shared_share_b += c.total_b_ns;
    }
    r.kernels.push_back(std::move(c));
  }
  r.shared_share_a = r.runtime_a_ns > 0 ? r.shared_share_a / r.runtime_a_ns : 0;
  r.shared_share_b = r.runtime_b_ns > 0 ? r.shared_share_b / r.runtime_b_ns : 0;
  std::stable_sort(r.kernels.begin(), r.kernels.end(), [](const KernelChange& x, const KernelChange& y) {
    return std::abs(x.delta_ns) > std::abs(y.delta_ns);
  });
}

void compare_ranges(const CompareSide& a, const CompareSide& b, CompareResult& r) {
  std::map<std::string, RangeChange> by_name;
  auto fill = [&](const CompareSide& side, bool is_a) {
    for (const RangeSummary& s : side.ranges) {
      RangeChange& c = by_name[s.name];
      c.name = s.name;
      (is_a ? c.count_a : c.count_b) = s.count;
      (is_a ? c.host_a_ns : c.host_b_ns) = s.total_ns;
      (is_a ? c.gpu_busy_a_ns : c.gpu_busy_b_ns) = s.gpu_busy_ns;
      (is_a ? c.gpu_kernels_a : c.gpu_kernels_b) = s.gpu_kernels;
    }
  };
  fill(a, true);
  fill(b, false);
  for (auto& [name, c] : by_name) {
    c.presence = c.count_a == 0 ? Presence::OnlyB : c.count_b == 0 ? Presence::OnlyA : Presence::Both;
    r.ranges.push_back(std::move(c));
  }
  std::stable_sort(r.ranges.begin(), r.ranges.end(), [](const RangeChange& x, const RangeChange& y) {
    return std::abs(x.host_b_ns - x.host_a_ns) > std::abs(y.host_b_ns - y.host_a_ns);
  });
}

// The level a point's bandwidth is judged at (see RooflineMove::bandwidth_level).
std::optional<MemLevel> bandwidth_level(const RooflinePoint* a, const RooflinePoint* b) {
  constexpr auto kHbm = static_cast<std::size_t>(MemLevel::Hbm);
  auto gbps = [](const RooflinePoint* p, std::size_t l) { return p && p->gbps[l] ? *p->gbps[l] : 0.0; };
  if (gbps(a, kHbm) > 0 || gbps(b, kHbm) > 0) return MemLevel::Hbm;
  std::optional<MemLevel> best;
  double most = 0;
  for (std::size_t l = 0; l < kMemLevelCount; ++l) {
    const double traffic = std::max(gbps(a, l), gbps(b, l));
    if (traffic > most) most = traffic, best = static_cast<MemLevel>(l);
  }
  if (!best && ((a && a->gbps[kHbm]) || (b && b->gbps[kHbm]))) best = MemLevel::Hbm;  // measured, zero
  return best;
}

void compare_roofline(const CompareSide& a, const CompareSide& b, CompareResult& r) {
  std::set<std::string> names;
  for (const KernelRoofline& k : a.roofline) names.insert(k.name);
  for (const KernelRoofline& k : b.roofline) names.insert(k.name);
  constexpr auto kHbm = static_cast<std::size_t>(MemLevel::Hbm);
  for (const std::string& name : names) {
    const KernelRoofline* ka = best_point(a.roofline, name);
    const KernelRoofline* kb = best_point(b.roofline, name);
    const RooflinePoint* pa = ka ? &ka->point : nullptr;
    const RooflinePoint* pb = kb ? &kb->point : nullptr;
    RooflineMove m;
    m.name = name;
    m.presence = !pa ? Presence::OnlyB : !pb ? Presence::OnlyA : Presence::Both;
    m.bandwidth_level = bandwidth_level(pa, pb);
    auto fill = [&](const RooflinePoint* p, std::optional<double>& intensity, std::optional<double>& gflops,
                    std::optional<double>& hbm, std::optional<double>& gbps, std::optional<double>& roof,
                    Bound& bound) {
      if (!p) return;
      intensity = p->intensity[kHbm];
      gflops = p->total_gflops;
      hbm = p->gbps[kHbm];
      if (m.bandwidth_level) gbps = p->gbps[static_cast<std::size_t>(*m.bandwidth_level)];
      roof = p->fraction_of_roof;
      bound = p->bound;
    };
    fill(pa, m.intensity_a, m.gflops_a, m.hbm_gbps_a, m.gbps_a, m.roof_fraction_a, m.bound_a);
    fill(pb, m.intensity_b, m.gflops_b, m.hbm_gbps_b, m.gbps_b, m.roof_fraction_b, m.bound_b);
    if (pa && pb) {
      bool bandwidth_moved = false;
      for (std::size_t l = 0; l < kMemLevelCount; ++l)
        if (pa->gbps[l] && pb->gbps[l]) bandwidth_moved = bandwidth_moved || differs(pa->gbps[l], pb->gbps[l]);
      m.moved = differs(m.intensity_a, m.intensity_b) || differs(m.gflops_a, m.gflops_b) || bandwidth_moved ||
                m.bound_a != m.bound_b;
    }
    r.roofline.push_back(std::move(m));
  }
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? std::string("no GPU recorded") : out;
}

void warn_if_unrelated(CompareResult& r) {
  std::size_t both = 0;
  for (const KernelChange& k : r.kernels) both += k.presence == Presence::Both ? 1 : 0;
  if (both == 0 && !r.kernels.empty())
    r.warnings.push_back("A and B have no kernel in common: they look like different programs, and every kernel "
                         "shows as gone or new (compare two runs of one program)");
  else if (r.shared_share_a < kUnrelatedSharedShare || r.shared_share_b < kUnrelatedSharedShare)
    r.warnings.push_back(fmt::format(
        "A and B share few kernels: {:.0f}% of A's kernel time and {:.0f}% of B's is in kernels both ran; they may "
        "be different programs or inputs, and kernels are matched by name only",
        100 * r.shared_share_a, 100 * r.shared_share_b));
  if (std::set<std::string>(r.devices_a.begin(), r.devices_a.end()) !=
      std::set<std::string>(r.devices_b.begin(), r.devices_b.end()))
    r.warnings.push_back(fmt::format("A ran on {} and B on {}: the differences include the device's",
                                     joined(r.devices_a), joined(r.devices_b)));
}

}  // namespace

const char* to_string(Significance s) {
  switch (s) {
    case Significance::Significant: return "significant";
    case Significance::WithinNoise: return "within_noise";
    case Significance::Unknown: return "unknown";
  }
  return "unknown";
}

const char* to_string(Presence p) {
  switch (p) {
    case Presence::Both: return "both";
    case Presence::OnlyA: return "only_a";
    case Presence::OnlyB: return "only_b";
  }
  return "both";
}

std::string shape_text(const LaunchShape& s) {
  return fmt::format("grid {}x{}x{} block {}x{}x{} lds {}", s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1],
                     s.block[2], s.lds_bytes);
}

ChangeTest welch_test(double mean_a, double sd_a, std::size_t n_a, double mean_b, double sd_b, std::size_t n_b,
                      std::string basis) {
  ChangeTest t;
  if (n_a < 2 || n_b < 2) return t;  // no spread to judge by
  t.basis = std::move(basis);
  const double va = sd_a * sd_a / static_cast<double>(n_a), vb = sd_b * sd_b / static_cast<double>(n_b);
  const double se2 = va + vb;
  if (!(se2 > 0)) {  // no spread at all: any difference is real
    t.verdict = mean_a == mean_b ? Significance::WithinNoise : Significance::Significant;
    t.t = mean_a == mean_b ? 0 : std::copysign(std::numeric_limits<double>::infinity(), mean_b - mean_a);
    t.dof = static_cast<double>(n_a + n_b - 2);
    return t;
  }
  t.t = (mean_b - mean_a) / std::sqrt(se2);
  const double denom = va * va / static_cast<double>(n_a - 1) + vb * vb / static_cast<double>(n_b - 1);
  t.dof = denom > 0 ? se2 * se2 / denom : static_cast<double>(n_a + n_b - 2);
  t.verdict = std::abs(t.t) > t_critical_95(t.dof) ? Significance::Significant : Significance::WithinNoise;
  return t;
}

std::string critical_path_statement(const CompareResult& r) {
  const ChangeTest& t = r.critical_path_test;
  if (t.basis.empty())
    return fmt::format("a single-run comparison ({} and {} run{}): no spread between runs to judge the change by; "
                       "compare `rocm-perf profile --runs N` directories for a significance",
                       r.runs_a, r.runs_b, r.runs_b == 1 ? "" : "s");
  return fmt::format("{} over {} and {} runs (Welch's t = {:.2f})",
                     t.verdict == Significance::Significant ? "significant" : "within the runs' spread", r.runs_a,
                     r.runs_b, t.t);
}

CompareResult compare_runs(const CompareSide& a, const CompareSide& b) {
  CompareResult r;
  r.label_a = a.label;
  r.label_b = b.label;
  r.runs_a = a.runtime_per_run_ns.size();
  r.runs_b = b.runtime_per_run_ns.size();
  r.devices_a = a.devices;
  r.devices_b = b.devices;
  const MeanSd ra = mean_sd(a.runtime_per_run_ns), rb = mean_sd(b.runtime_per_run_ns);
  r.runtime_a_ns = ra.mean;
  r.runtime_b_ns = rb.mean;
  r.runtime_test = welch_test(ra.mean, ra.sd, ra.n, rb.mean, rb.sd, rb.n, "runs");
  auto path_runs = [](const CompareSide& side) {
    return side.critical_path_per_run_ns.empty() ? std::vector<double>{side.critical_path_ns}
                                                 : side.critical_path_per_run_ns;
  };
  const MeanSd pa = mean_sd(path_runs(a)), pb = mean_sd(path_runs(b));
  r.critical_path_a_ns = pa.mean;
  r.critical_path_b_ns = pb.mean;
  r.critical_path_test = welch_test(pa.mean, pa.sd, pa.n, pb.mean, pb.sd, pb.n, "runs");
  r.wall_span_a_ns = a.wall_span_ns;
  r.wall_span_b_ns = b.wall_span_ns;
  compare_kernels(a, b, r);
  compare_ranges(a, b, r);
  compare_roofline(a, b, r);
  warn_if_unrelated(r);
  return r;
}

}  // namespace rpl::analysis
