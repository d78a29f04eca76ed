// autotune.json and the terminal summary.
#include <fmt/core.h>

#include "autotune/tuner.hpp"

namespace rpl::autotune {

nlohmann::ordered_json result_document(const SearchSpace& space, const std::string& space_file,
                                       const Evaluator& evaluator, const TuneOptions& options, const TuneResult& r) {
  using J = nlohmann::ordered_json;
  J doc;
  doc["schema_version"] = 1;
  doc["tool"] = "rocm-perf autotune";
  J s = space.definition();
  s["file"] = space_file;
  s["cartesian_size"] = space.cartesian_size();
  s["valid_configurations"] = space.size();
  doc["space"] = s;
  doc["objective"] = evaluator.describe();
  doc["strategy"] = strategy_name(options.strategy);
  doc["seed"] = options.seed;
  doc["budget"] = {{"requested", options.budget.requested},
                   {"configurations", options.strategy == Strategy::Exhaustive ? space.size() : options.budget.configurations},
                   {"measured_valid", r.valid},
                   {"invalid", r.invalid},
                   {"from_cache", r.from_cache},
                   {"stop_reason", r.stop_reason},
                   {"max_evaluations", options.max_evaluations ? J(*options.max_evaluations) : J(nullptr)}};
  if (r.best) {
    const auto& b = r.measurements[*r.best];
    doc["best"] = {{"config", space.to_json(space.config(b.config))}, {"objective", b.outcome.objective}, {"sequence", b.sequence}};
  } else {
    doc["best"] = nullptr;
  }
  J model = nullptr;
  if (options.strategy == Strategy::Model) {
    model = {{"kind", "xgboost gradient-boosted trees (ensemble), log objective"},
             {"features", r.features},
             {"cv_folds", 5},
             {"cv_r2", r.cv_r2 ? J(*r.cv_r2) : J(nullptr)},
             {"r2_threshold", kLowConfidenceR2},
             {"seed_fraction", options.seed_fraction},
             {"seed_max", options.max_seed ? J(*options.max_seed) : J(nullptr)}};
  }
  doc["model"] = model;
  if (options.strategy == Strategy::Model && (!r.cv_r2 || *r.cv_r2 < kLowConfidenceR2)) {
    doc["warning"] = "low_model_confidence";
    doc["advice"] = {fmt::format("increase the seed fraction (--seed-fraction, {} here; or a larger --budget)",
                                 options.seed_fraction),
                     "reduce the search dimensionality",
                     "inspect the runtime variance (--runs, a quieter machine)"};
  }
  J phases = J::array();
  for (const auto& p : r.phases)
    phases.push_back({{"name", p.name}, {"valid", p.valid}, {"invalid", p.invalid}, {"from_cache", p.from_cache},
                      {"rounds", p.rounds}, {"restarts", p.restarts},
                      {"descent_rounds", p.descent_rounds}, {"seconds", p.seconds}});
  doc["phases"] = phases;
  J measurements = J::array(), invalid = J::array();
  for (const auto& m : r.measurements) {
    J e = {{"sequence", m.sequence}, {"config", space.to_json(space.config(m.config))}, {"phase", m.phase},
           {"source", m.source}, {"status", m.outcome.valid ? "ok" : "invalid"}};
    e["objective"] = m.outcome.valid ? J(m.outcome.objective) : J(nullptr);
    if (!m.outcome.valid) {
      e["reason"] = m.outcome.reason;
      invalid.push_back({{"config", e["config"]}, {"reason", m.outcome.reason}});
    }
    e["seconds"] = m.seconds;
    measurements.push_back(e);
  }
  doc["measurements"] = measurements;
  doc["invalid"] = invalid;
  const double overhead = std::max(0.0, r.wall_seconds - r.evaluation_seconds);
  doc["timing"] = {{"wall_seconds", r.wall_seconds},
                   {"measuring_seconds", r.evaluation_seconds},
                   {"tuner_seconds", overhead},
                   {"tuner_ms_per_configuration",
                    r.measurements.empty() ? 0.0 : 1000.0 * overhead / static_cast<double>(r.measurements.size())}};
  return doc;
}

std::string result_summary(const nlohmann::ordered_json& d) {
  std::string out;
  const auto& b = d["budget"];
  out += fmt::format("autotune ({}): {} valid of {} configurations measured ({} invalid, {} from cache); stopped: {}\n",
                     d["strategy"].get<std::string>(), b["measured_valid"].get<std::size_t>(),
                     d["space"]["valid_configurations"].get<std::size_t>(), b["invalid"].get<std::size_t>(),
                     b["from_cache"].get<std::size_t>(), b["stop_reason"].get<std::string>());
  if (!d["best"].is_null()) {
    std::string cfg;
    for (const auto& [k, v] : d["best"]["config"].items()) cfg += fmt::format("{}{}={}", cfg.empty() ? "" : " ", k, v.dump());
    out += fmt::format("best: {:.6g}  {}\n", d["best"]["objective"].get<double>(), cfg);
  }
  if (d.contains("simulation")) {  // --simulate: the best in the cache's own terms, against the cache's optimum
    const auto& s = d["simulation"];
    const bool higher = s.value("higher_is_better", false);
    const std::string name = s["objective"].get<std::string>();
    out += fmt::format("simulation: best {} {:.6g}{}; the cache's optimum {:.6g} ({:.3f}x)\n", name,
                       s["best_value"].get<double>(),
                       higher ? fmt::format(" (higher is better: the search minimized 1/{}, the line above)", name) : "",
                       s["optimum_value"].get<double>(), s["best_to_optimum"].get<double>());
  }
  if (!d["model"].is_null()) {
    const auto& r2 = d["model"]["cv_r2"];
    out += fmt::format("model: cross-validated R^2 {}\n", r2.is_null() ? std::string("n/a (too few valid measurements)")
                                                                       : fmt::format("{:.3f}", r2.get<double>()));
  }
  if (d.contains("warning")) {
    out += fmt::format("WARNING: {} (cross-validated R^2 below {}): the model's ranking may be unreliable. Try: ",
                       d["warning"].get<std::string>(), kLowConfidenceR2);
    bool first = true;
    for (const auto& a : d["advice"]) {
      out += (first ? "" : "; ") + a.get<std::string>();
      first = false;
    }
    out += "\n";
  }
  return out;
}

}  // namespace rpl::autotune
