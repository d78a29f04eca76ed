#include "report/roofline_report.hpp"
#include "support/json_optional.hpp"

#include <fmt/core.h>

#include <cmath>
#include <optional>
#include <unordered_map>

namespace rpl::report {
namespace {

using analysis::ComputeClass;
using analysis::MemLevel;

std::string ceiling_label(ComputeClass c) {
  std::string name = analysis::compute_class_name(c);  // "vector_f32"
  auto sep = name.find('_');
  std::string type = name.substr(sep + 1), pipe = name.substr(0, sep);
  for (char& ch : type) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return fmt::format("{} {}", type, pipe);
}

std::string level_label(MemLevel l) {
  switch (l) {
    case MemLevel::Hbm: return "HBM";
    case MemLevel::L2: return "L2";
    case MemLevel::L1: return "L1";
    case MemLevel::Lds: return "LDS";
  }
  return "?";
}

// Why a kernel is neither a roofline point nor a bandwidth bar, in the analysis's own words where it gave some.
std::string undrawn_reason(const analysis::RooflinePoint& p) {
  const auto hbm = static_cast<std::size_t>(MemLevel::Hbm);
  std::string reason;
  if (!p.reasons.empty()) {
    for (const auto& r : p.reasons) reason += (reason.empty() ? "" : "; ") + r;
  } else if (!p.gbps[hbm] || *p.gbps[hbm] <= 0) {
    reason = p.total_gflops && *p.total_gflops > 0 ? "no device-memory bytes were counted, so it has no intensity"
                                                    : "no FLOPs and no bytes at any memory level were counted";
  } else {
    reason = "its FLOP counters are missing";
  }
  if (!p.missing_counters.empty()) {
    reason += " (missing:";
    for (const auto& c : p.missing_counters) reason += " " + c;
    reason += ")";
  }
  return reason;
}

// The level whose bytes give a kernel's arithmetic intensity: device memory, or, for a kernel that moved no
// bytes there (its data stayed in cache), the nearest level that counted some.
std::optional<std::size_t> intensity_level(const analysis::RooflinePoint& p) {
  for (MemLevel l : {MemLevel::Hbm, MemLevel::L2, MemLevel::L1, MemLevel::Lds}) {
    const auto& ai = p.intensity[static_cast<std::size_t>(l)];
    if (ai && *ai > 0 && std::isfinite(*ai)) return static_cast<std::size_t>(l);
  }
  return std::nullopt;
}

// The memory level a FLOP-less kernel is placed at: the one with the highest share of its ceiling, or, where
// no level with traffic has a ceiling, the one with the most traffic.
std::optional<BandwidthBar> bandwidth_bar(const analysis::RooflinePoint& p, const analysis::Ceilings* ceilings) {
  std::optional<BandwidthBar> best;
  double best_fraction = -1;
  for (std::size_t l = 0; l < analysis::kMemLevelCount; ++l) {
    if (!p.gbps[l] || *p.gbps[l] <= 0) continue;
    double peak = ceilings && ceilings->bandwidth[l].known() ? ceilings->bandwidth[l].value : 0;
    double fraction = peak > 0 ? *p.gbps[l] / peak : -1;
    bool better = !best || (fraction >= 0 ? fraction > best_fraction : best_fraction < 0 && *p.gbps[l] > best->gbps);
    if (!better) continue;
    best = BandwidthBar{"", level_label(static_cast<MemLevel>(l)), *p.gbps[l], peak, 0};
    best_fraction = fraction;
  }
  return best;
}

}  // namespace

nlohmann::json roofline_json(const app::AnalyzeResults& r) {
  nlohmann::json doc = analysis::roofline_document(r.trace, r.roofline);
  if (r.counter_failure && doc["status"] != "ok") {
    doc["status"] = "counter_pass_failed";
    doc["reason"] = "the counter pass failed: " + *r.counter_failure;
  }
  // Deep analysis and labels, on the roofline kernel each diagnosis belongs to.
  std::unordered_map<int, std::size_t> stats_of_roofline;
  for (std::size_t i = 0; i < r.diagnosis.size(); ++i)
    if (r.diagnosis[i].roofline >= 0) stats_of_roofline.emplace(r.diagnosis[i].roofline, i);
  auto& kernels = doc["kernels"];
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    auto it = stats_of_roofline.find(static_cast<int>(k));
    if (it == stats_of_roofline.end()) continue;
    const app::KernelDiagnosis& dx = r.diagnosis[it->second];
    if (dx.deep) kernels[k]["deep_analysis"] = analysis::to_json(*dx.deep);
    kernels[k]["bottleneck"] = analysis::to_json(dx.bottleneck);
  }
  return doc;
}

RooflineView roofline_view(const app::AnalyzeResults& r) {
  RooflineView view;
  view.note = analysis::roofline_status(r.trace, r.roofline).reason;
  if (r.roofline.kernels.empty()) return view;

  // The device of the kernel with the most profiled time.
  const Index agent = r.roofline.kernels.front().agent;
  for (const auto& a : r.roofline.agents) {
    if (a.agent != agent) continue;
    view.device = a.product_name.empty() ? a.arch : fmt::format("{} ({})", a.product_name, a.arch);
    for (std::size_t c = 0; c < analysis::kComputeClassCount; ++c)
      if (a.ceilings.compute[c].known())
        view.compute.push_back({ceiling_label(ComputeClass::from_index(c)), a.ceilings.compute[c].value});
    for (std::size_t l = 0; l < analysis::kMemLevelCount; ++l)
      if (a.ceilings.bandwidth[l].known())
        view.memory.push_back({level_label(static_cast<MemLevel>(l)), a.ceilings.bandwidth[l].value});
  }
  std::unordered_map<std::string, double> share;
  for (const auto& k : r.stats.kernels) share[k.name] = k.share_of_gpu_time;
  const analysis::Ceilings* ceilings = nullptr;
  for (const auto& a : r.roofline.agents)
    if (a.agent == agent) ceilings = &a.ceilings;
  for (const auto& k : r.roofline.kernels) {
    if (k.agent != agent) continue;
    const auto& p = k.point;
    const double kernel_share = share.count(k.name) ? share[k.name] : 0.0;
    if (auto level = intensity_level(p); level && p.total_gflops && *p.total_gflops > 0) {
      view.points.push_back({k.name, *p.intensity[*level], *p.total_gflops, kernel_share, p.above_roof,
                             analysis::to_string(p.bound), level_label(static_cast<MemLevel>(*level))});
    } else if (auto bar = bandwidth_bar(p, ceilings); bar && p.total_gflops && *p.total_gflops == 0) {
      bar->kernel = k.name;
      bar->share = kernel_share;
      view.bandwidth_only.push_back(*bar);
    } else {
      view.undrawn.push_back({k.name, undrawn_reason(p)});
    }
  }
  view.note.clear();  // the kernels themselves say what is drawn and what is not
  return view;
}

nlohmann::json kernel_roofline_summary(const app::AnalyzeResults& r, std::size_t kernel) {
  if (kernel >= r.diagnosis.size() || r.diagnosis[kernel].roofline < 0) return nullptr;
  const auto& p = r.roofline.kernels[static_cast<std::size_t>(r.diagnosis[kernel].roofline)].point;
  const auto hbm = static_cast<std::size_t>(analysis::MemLevel::Hbm);
  return {{"status", analysis::to_string(p.status)},
          {"bound", analysis::to_string(p.bound)},
          {"gflops", json_or_null(p.total_gflops)},
          {"hbm_gbps", json_or_null(p.gbps[hbm])},
          {"arithmetic_intensity", json_or_null(p.intensity[hbm])},
          {"fraction_of_roof", json_or_null(p.fraction_of_roof)},
          {"above_roof", p.above_roof}};
}

nlohmann::json profile_roofline_json(const app::AnalyzeResults& r) {
  const analysis::RooflineStatus status = analysis::roofline_status(r.trace, r.roofline);
  if (r.counter_failure && r.roofline.kernels.empty())
    return {{"status", "counter_pass_failed"}, {"reason", *r.counter_failure}, {"kernel_points", 0}, {"ok_points", 0},
            {"dominant_kernel", nullptr}, {"file", "roofline.json"}};
  if (r.trace.counters.empty() && r.roofline.kernels.empty()) return nullptr;
  std::size_t ok = 0;
  for (const auto& k : r.roofline.kernels) ok += k.point.status == analysis::PointStatus::Ok;
  return {{"status", status.status},
          {"reason", status.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(status.reason)},
          {"kernel_points", r.roofline.kernels.size()},
          {"ok_points", ok},
          {"dominant_kernel", r.stats.dominant >= 0 ? kernel_roofline_summary(r, static_cast<std::size_t>(r.stats.dominant))
                                                    : nlohmann::json(nullptr)},
          {"file", "roofline.json"}};
}

}  // namespace rpl::report
