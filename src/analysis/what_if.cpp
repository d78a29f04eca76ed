// What-if re-timing: scale matching kernels' durations and re-run the DAG's forward pass.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <optional>
#include <set>

#include "analysis/critical_path.hpp"
#include "analysis/dag.hpp"
#include "analysis/dag_edges.hpp"
#include "support/errors.hpp"
#include "support/user_regex.hpp"

#include <fmt/core.h>

namespace rpl::analysis {
namespace {

Error bad_spec(const std::string& spec, const std::string& why) {
  return Error(ExitCode::Usage, "what-if '" + spec + "': " + why + " (expected REGEX=FACTOR, e.g. 'gemm=0.5')");
}

UserRegex compile(const std::string& spec, const std::string& pattern) {
  try {
    return UserRegex(pattern, "--what-if");
  } catch (const Error& e) {
    throw bad_spec(spec, e.what());
  }
}

std::string spec_text(const WhatIf& w) { return w.pattern + "=" + fmt::format("{}", w.factor); }

// Which kernel symbols each scenario's pattern matches (display name, searched).
std::vector<uint8_t> match_symbols(const Trace& trace, const WhatIf& w) {
  const UserRegex re = compile(spec_text(w), w.pattern);
  std::vector<uint8_t> matched(trace.symbols.size(), 0);
  for (std::size_t s = 0; s < trace.symbols.size(); ++s)
    matched[s] = re.search(trace.strings.at(trace.symbols[s].display_name)) ? 1 : 0;
  return matched;
}

// The makespan of the DAG with given durations of the work nodes: one streamed forward pass in submission order
// (issue 32: no per-node arrays) while that order is a topological order, else the per-node arrays (the DAG built
// once, on the first scenario that needs it). Joins are zero long either way.
class Retimer {
 public:
  Retimer(const Trace& trace, const DagOptions& options)
      : edges_(dag::build_edges(trace, options)), work_count_(edges_.nodes->size()), streamed_(options.streamed) {}
  const dag::WorkTimes& times() const { return times_; }
  std::size_t work_count() const { return work_count_; }

  double makespan(const std::function<double(dag::NodeId)>& duration_of) {
    if (!arrays_ && streamed_)
      if (std::optional<double> m = dag::streamed_makespan(edges_, duration_of)) return *m;
    if (!arrays_) {
      arrays_.emplace(dag::build_dag(std::move(edges_)));
      durations_.resize(arrays_->size());
      finish_.resize(arrays_->size());
    }
    for (dag::NodeId v = 0; v < arrays_->size(); ++v) durations_[v] = v < work_count_ ? duration_of(v) : 0.0;
    return dag::forward_pass<double>(*arrays_, durations_, finish_);
  }

 private:
  dag::EdgeSet edges_;
  std::size_t work_count_;
  dag::WorkTimes times_{edges_.nodes->times};
  bool streamed_;
  std::optional<dag::Dag> arrays_;
  LargeVector<double> durations_, finish_;
};

// Re-times the DAG with per-symbol factors (1 = unchanged) and fills the counts of one result.
void retime(const Trace& trace, Retimer& dag, const std::vector<uint8_t>& symbol_matched,
            const std::vector<double>& symbol_factor, double baseline, WhatIfResult& out) {
  std::vector<uint8_t> symbol_hit(trace.symbols.size(), 0);
  double saved = 0;
  const dag::WorkTimes& times = dag.times();
  auto scaled = [&](dag::NodeId v, double d) {
    if (v >= times.dispatch_count) return d;
    const Index s = trace.dispatches.symbol_of(v);
    return s < symbol_matched.size() && symbol_matched[s] ? d * symbol_factor[s] : d;
  };
  for (dag::NodeId v = 0; v < times.dispatch_count; ++v) {
    const Index s = trace.dispatches.symbol_of(v);
    if (s >= symbol_matched.size() || !symbol_matched[s]) continue;
    const double d = static_cast<double>(times.duration(v));
    saved += d - scaled(v, d);
    ++out.matched_dispatches;
    symbol_hit[s] = 1;
  }
  std::set<std::string> names;
  for (std::size_t s = 0; s < symbol_hit.size(); ++s)
    if (symbol_hit[s]) names.insert(trace.strings.at(trace.symbols[s].display_name));
  out.matched_kernels.assign(names.begin(), names.end());
  out.baseline_ns = baseline;
  out.predicted_ns = dag.makespan([&](dag::NodeId v) { return scaled(v, static_cast<double>(times.duration(v))); });
  out.delta_ns = out.predicted_ns - out.baseline_ns;
  out.speedup = out.predicted_ns > 0 ? out.baseline_ns / out.predicted_ns : 1.0;
  out.naive_delta_ns = -saved;
}

}  // namespace

WhatIf parse_what_if(const std::string& spec) {
  const auto eq = spec.rfind('=');
  if (eq == std::string::npos) throw bad_spec(spec, "missing '='");
  WhatIf w;
  w.pattern = spec.substr(0, eq);
  const std::string factor_text = spec.substr(eq + 1);
  if (w.pattern.empty()) throw bad_spec(spec, "empty kernel name pattern");
  if (factor_text.empty()) throw bad_spec(spec, "missing factor after '='");
  const char* first = factor_text.data();
  const char* last = first + factor_text.size();
  auto [end, ec] = std::from_chars(first, last, w.factor);
  if (ec != std::errc() || end != last || !std::isfinite(w.factor) || !(w.factor > 0))
    throw bad_spec(spec, "factor '" + factor_text + "' is not a finite number greater than 0");
  compile(spec, w.pattern);
  return w;
}

std::vector<WhatIfResult> run_what_if(const Trace& trace, const std::vector<WhatIf>& scenarios,
                                      const DagOptions& options) {
  std::vector<std::vector<uint8_t>> matches;
  for (const WhatIf& w : scenarios) {
    if (!std::isfinite(w.factor) || !(w.factor > 0))
      throw bad_spec(spec_text(w), "factor is not a finite number greater than 0");
    matches.push_back(match_symbols(trace, w));  // validates the pattern before any work
  }
  Retimer g(trace, options);
  // The baseline runs through the same double-precision pass as the scenarios (exact: integer ns far
  // below 2^53).
  const double baseline = g.makespan([&](dag::NodeId v) { return static_cast<double>(g.times().duration(v)); });

  std::vector<WhatIfResult> results;
  std::vector<double> combined(trace.symbols.size(), 1.0);
  std::vector<uint8_t> any_match(trace.symbols.size(), 0);
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    std::vector<double> factor(trace.symbols.size(), 1.0);
    for (std::size_t s = 0; s < factor.size(); ++s) {
      if (!matches[i][s]) continue;
      factor[s] = scenarios[i].factor;
      combined[s] *= scenarios[i].factor;
      any_match[s] = 1;
    }
    WhatIfResult r;
    r.spec = scenarios[i];
    retime(trace, g, matches[i], factor, baseline, r);
    results.push_back(std::move(r));
  }
  if (scenarios.size() > 1) {
    WhatIfResult r;
    r.combined = true;
    r.spec.factor = 0;
    for (std::size_t i = 0; i < scenarios.size(); ++i)
      r.spec.pattern += (i ? "; " : "") + spec_text(scenarios[i]);
    retime(trace, g, any_match, combined, baseline, r);
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace rpl::analysis
