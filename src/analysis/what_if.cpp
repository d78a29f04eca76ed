// What-if re-timing: scale matching kernels' durations and re-run the DAG's forward pass.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "analysis/critical_path.hpp"
#include "analysis/dag.hpp"
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

// Re-times the DAG with per-symbol factors (1 = unchanged) and fills the counts of one result.
void retime(const Trace& trace, const dag::Dag& g, const std::vector<uint8_t>& symbol_matched,
            const std::vector<double>& symbol_factor, double baseline, LargeVector<double>& durations,
            LargeVector<double>& finish, WhatIfResult& out) {
  std::vector<uint8_t> symbol_hit(trace.symbols.size(), 0);
  double saved = 0;
  for (dag::NodeId v = 0; v < g.size(); ++v) {
    const double d = static_cast<double>(g.duration(v));
    durations[v] = d;
    if (v >= g.dispatch_count) continue;
    const Index s = trace.dispatches.symbol_of(v);
    if (s >= symbol_matched.size() || !symbol_matched[s]) continue;
    durations[v] = d * symbol_factor[s];
    saved += d - durations[v];
    ++out.matched_dispatches;
    symbol_hit[s] = 1;
  }
  std::set<std::string> names;
  for (std::size_t s = 0; s < symbol_hit.size(); ++s)
    if (symbol_hit[s]) names.insert(trace.strings.at(trace.symbols[s].display_name));
  out.matched_kernels.assign(names.begin(), names.end());
  out.baseline_ns = baseline;
  out.predicted_ns = dag::forward_pass<double>(g, durations, finish);
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
  const dag::Dag g = dag::build_dag(trace, options);
  // The baseline runs through the same double-precision pass as the scenarios (exact: integer ns far
  // below 2^53), so that one pair of buffers serves every pass.
  LargeVector<double> durations(g.size()), finish(g.size());
  for (dag::NodeId v = 0; v < g.size(); ++v) durations[v] = static_cast<double>(g.duration(v));
  const double baseline = dag::forward_pass<double>(g, durations, finish);

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
    retime(trace, g, matches[i], factor, baseline, durations, finish, r);
    results.push_back(std::move(r));
  }
  if (scenarios.size() > 1) {
    WhatIfResult r;
    r.combined = true;
    r.spec.factor = 0;
    for (std::size_t i = 0; i < scenarios.size(); ++i)
      r.spec.pattern += (i ? "; " : "") + spec_text(scenarios[i]);
    retime(trace, g, any_match, combined, baseline, durations, finish, r);
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace rpl::analysis
