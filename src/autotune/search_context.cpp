#include "autotune/search_context.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "support/errors.hpp"

namespace rpl::autotune {
namespace {

// Runs that must all fail, from the start, before the template is declared broken.
constexpr std::size_t kFailuresBeforeGivingUp = 10;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

SearchContext::SearchContext(const SearchSpace& space, Evaluator& evaluator, Cache* cache,
                             const std::unordered_map<std::string, CachedMeasurement>* imported,
                             const TuneOptions& options)
    : space_(space), evaluator_(evaluator), cache_(cache), imported_(imported), options_(options),
      rng_(options.seed), measured_(space.size(), false), progress_(options.show_progress), start_(Clock::now()) {
  budget_ = std::min(options.budget.configurations, space.size());
  max_invalid_ = options.max_invalid.value_or(std::max<std::size_t>(20, budget_));
  if (options.max_evaluations) max_invalid_ = std::max(max_invalid_, *options.max_evaluations);
}

void SearchContext::begin_phase(const std::string& name) {
  phase_start_ = Clock::now();
  result_.phases.push_back({name});
}

void SearchContext::end_phase() { result_.phases.back().seconds = seconds_since(phase_start_); }

bool SearchContext::measure(std::size_t index) {
  measured_[index] = true;
  MeasurementRecord rec;
  rec.sequence = result_.measurements.size();
  rec.config = index;
  rec.phase = result_.phases.back().name;
  const std::string key = space_.key(space_.config(index));
  const CachedMeasurement* hit = cache_ ? cache_->find(key) : nullptr;
  if (!hit && imported_) {
    auto it = imported_->find(key);
    if (it != imported_->end()) {
      hit = &it->second;
      if (cache_) cache_->append(key, space_.to_json(space_.config(index)), *hit);
    }
  }
  if (hit) {
    rec.outcome = hit->outcome;
    rec.source = hit->source == "measured" ? "cache" : hit->source;
    ++result_.from_cache;
    ++result_.phases.back().from_cache;
  } else {
    const auto t = Clock::now();
    rec.outcome = evaluator_.evaluate(space_, space_.config(index), rec.sequence);
    rec.seconds = seconds_since(t);
    result_.evaluation_seconds += rec.seconds;
    rec.source = "measured";
    if (cache_) cache_->append(key, space_.to_json(space_.config(index)), {rec.outcome, "measured"});
  }
  if (rec.outcome.valid) {
    ++result_.valid;
    ++result_.phases.back().valid;
    if (!result_.best || rec.outcome.objective < result_.measurements[*result_.best].outcome.objective)
      result_.best = result_.measurements.size();
  } else {
    ++result_.invalid;
    ++result_.phases.back().invalid;
    last_failure_ = rec.outcome.reason;
    if (result_.valid == 0 && result_.invalid >= std::min(kFailuresBeforeGivingUp, space_.size())) throw_all_failed();
    if (result_.invalid >= max_invalid_) {
      stopped_ = true;
      result_.stop_reason = "too many invalid configurations";
    }
  }
  result_.measurements.push_back(std::move(rec));
  if (options_.max_evaluations && result_.measurements.size() >= *options_.max_evaluations && !stopped_) {
    stopped_ = true;
    result_.stop_reason = "evaluations";
  }
  show_progress();
  return result_.measurements.back().outcome.valid;
}

TuneResult SearchContext::finish() {
  progress_.done();
  if (result_.valid == 0) throw_all_failed();
  result_.wall_seconds = seconds_since(start_);
  if (result_.stop_reason.empty()) result_.stop_reason = result_.valid >= budget_ ? "budget" : "space exhausted";
  return std::move(result_);
}

void SearchContext::show_progress() {
  if (!options_.show_progress) return;
  std::string best = result_.best ? fmt::format("{:.6g}", result_.measurements[*result_.best].outcome.objective) : "-";
  progress_.update(fmt::format("autotune {}: {}/{} measured, {} invalid, best {}", result_.phases.back().name,
                               result_.valid, budget_, result_.invalid, best));
}

void SearchContext::throw_all_failed() {
  throw Error(ExitCode::ApplicationFailed,
              fmt::format("every one of the {} configurations tried failed; the last: {}", result_.invalid, last_failure_));
}

}  // namespace rpl::autotune
