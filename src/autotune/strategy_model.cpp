// --strategy model (the default): a level-balanced, space-filling seed sample, then rounds of predict (a
// gradient-boosted tree ensemble on the log objective; expected improvement times the probability of running,
// local steps around the incumbent every other round, restarts away from a stagnant basin) and confirm
// (measure the best-ranked), until the budget of valid measurements is spent; on a space flat near its best, once
// a quarter of the budget is spent every other round is a descent around the incumbent, and over the last tenth of
// the budget every round is, on any space (late_descent.hpp); there, on a flat space, the descent takes turns
// between the incumbent and a runner-up once the incumbent's one-change neighbours are all measured.
// docs/autotune.md, "The search".
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "autotune/features.hpp"
#include "autotune/late_descent.hpp"
#include "autotune/strategy.hpp"
#include "autotune/surrogate.hpp"

namespace rpl::autotune {
namespace {

// Candidates the model ranks in one round; larger spaces are subsampled afresh each round.
constexpr std::size_t kMaxCandidates = 40'000;
// Rounds predict every configuration from rows prepared once while the space's features fit in this many values
// (32 MiB of floats; xgboost keeps its own copy).
constexpr std::size_t kMaxPreparedFeatureValues = 8'000'000;
// Restart: when this many valid measurements in a row (since the last restart) improved the best by less than
// kStagnationGain, the search has settled in a basin; the next round looks elsewhere.
constexpr std::size_t kStagnationWindow = 8;
constexpr double kStagnationGain = 0.01;
// Trust region on a spiky space: when the median valid measurement is more than kSpikyMedianRatio times the
// best one (most of the space an order of magnitude off, as on the AMD convolution spaces, median about 30x the
// optimum), a global round takes only configurations within kTrustRadius parameter changes of the incumbent.
constexpr double kSpikyMedianRatio = 5.0;
constexpr std::size_t kTrustRadius = 2;

class ModelSearch : public SearchStrategy {
 public:
  void run(SearchContext& ctx) override {
    ctx_ = &ctx;
    model_search();
  }

 private:
  const SearchSpace& space() const { return ctx_->space(); }

  // Space-filling seed over the discrete levels: built greedily, each point the one among a pool of
  // random unmeasured configurations whose parameter values have been used least so far (every value of
  // every parameter is tried early, like a Latin design, as far as the restrictions allow), ties broken by
  // the distance to the points already chosen (maximin over value ranks scaled to [0, 1]). A plain random
  // sample of the valid configurations clumps on the levels the restrictions favour.
  std::vector<std::size_t> space_filling_order(std::size_t want) {
    const auto& ps = space().parameters();
    auto coord = [&](std::size_t cfg, std::size_t p) {
      const std::size_t n = ps[p].values.size();
      return n > 1 ? static_cast<double>(space().config(cfg)[p]) / static_cast<double>(n - 1) : 0.0;
    };
    want = std::min(want, space().size());
    std::vector<std::vector<std::size_t>> used(ps.size());
    for (std::size_t p = 0; p < ps.size(); ++p) used[p].assign(ps[p].values.size(), 0);
    std::vector<bool> chosen(space().size(), false);
    std::vector<std::size_t> out;
    std::uniform_int_distribution<std::size_t> pick(0, space().size() - 1);
    constexpr int kPool = 64;
    while (out.size() < want) {
      std::size_t best = SearchSpace::npos;
      double best_balance = 0, best_distance = 0;
      for (int k = 0; k < kPool; ++k) {
        const std::size_t c = pick(ctx_->rng());
        if (chosen[c]) continue;
        double balance = 0;  // how often this configuration's values were used, relative to a level's share
        for (std::size_t p = 0; p < ps.size(); ++p)
          balance += static_cast<double>(used[p][space().config(c)[p]]) * static_cast<double>(ps[p].values.size());
        double distance = std::numeric_limits<double>::infinity();
        for (std::size_t o : out) {
          double d = 0;
          for (std::size_t p = 0; p < ps.size(); ++p) d += (coord(c, p) - coord(o, p)) * (coord(c, p) - coord(o, p));
          distance = std::min(distance, d);
        }
        if (best == SearchSpace::npos || balance < best_balance || (balance == best_balance && distance > best_distance)) {
          best = c;
          best_balance = balance;
          best_distance = distance;
        }
      }
      if (best == SearchSpace::npos) continue;
      chosen[best] = true;
      out.push_back(best);
      for (std::size_t p = 0; p < ps.size(); ++p) ++used[p][space().config(best)[p]];
    }
    return out;
  }

  void model_search() {
    // Seed: --seed-fraction of the budget (default 20%, at most 20 configurations; at least 10 where the budget
    // allows), the rest model-guided.
    const double fraction = ctx_->options().seed_fraction;
    const std::size_t budget = ctx_->budget();
    const std::size_t at_least = std::min<std::size_t>(10, budget);
    std::size_t seed_valid = static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(budget)));
    if (ctx_->options().max_seed) seed_valid = std::min(seed_valid, *ctx_->options().max_seed);
    seed_valid = std::min(budget, std::max(at_least, seed_valid));
    ctx_->begin_phase("seed");
    // Invalid seed points are replaced by further random ones until the seed has its valid measurements.
    std::vector<std::size_t> seed = space_filling_order(seed_valid);
    std::vector<std::size_t> rest(space().size());
    std::iota(rest.begin(), rest.end(), 0);
    std::shuffle(rest.begin(), rest.end(), ctx_->rng());
    seed.insert(seed.end(), rest.begin(), rest.end());
    for (std::size_t i = 0; i < seed.size() && ctx_->result().valid < seed_valid && !ctx_->stopped(); ++i)
      if (!ctx_->measured(seed[i])) ctx_->measure(seed[i]);
    ctx_->end_phase();
    ctx_->begin_phase("predict-confirm");
    FeatureMap features(space());
    ctx_->result().features = features.names();
    ModelOptions mo;
    mo.seed = ctx_->options().seed;
    while (!ctx_->done()) {
      std::vector<std::size_t> candidates;
      for (std::size_t i = 0; i < space().size(); ++i)
        if (!ctx_->measured(i)) candidates.push_back(i);
      if (candidates.empty()) break;
      if (candidates.size() > kMaxCandidates) {
        std::shuffle(candidates.begin(), candidates.end(), ctx_->rng());
        candidates.resize(kMaxCandidates);
      }
      ++ctx_->result().phases.back().rounds;
      // The late descent's gate is decided once, when the last kDescentShareOfBudget of the budget begins; a
      // closed gate changes nothing. Open, the descent takes every other round, starting with the first: the
      // model's rounds in between keep finding other basins (a descent alone polished runner-up basins).
      const BudgetUse use{ctx_->result().valid, budget, ctx_->result().measurements.size(),
                          ctx_->options().max_evaluations};
      if (gate_ == Gate::Undecided && in_last_share(use, kDescentShareOfBudget))
        gate_ = flat_near_best(valid_objectives()) ? Gate::Open : Gate::Closed;
      // The final descent: over the last kFinalDescentShareOfBudget of the budget every round is a descent around
      // the incumbent, on any space (late_descent.hpp). The model's rounds have found the basin by then; what is
      // left is often one parameter change from it that the model ranks low.
      // There, on a space whose gate is open, once the incumbent's one-change neighbourhood is all measured, every
      // other round is a descent around the runner-up instead, starting with it (late_descent.hpp, runner_up()):
      // such runs stopped at near-ties a few changes from the optimum. Not before: at small budgets the incumbent's
      // own one-change step is where the last gain is.
      std::vector<std::size_t> batch;
      if (in_final_descent(use)) {
        const std::size_t incumbent = best_measured(1).front();
        const bool shared =
            gate_ == Gate::Open && incumbent_descent_.centre == incumbent && incumbent_descent_.level >= 1;
        const std::optional<std::size_t> far =
            shared && shared_rounds_++ % 2 == 0 ? runner_up_configuration() : std::nullopt;
        if (far) batch = descent_round(runner_up_descent_, *far, features, candidates, mo);
        else batch = descent_round(incumbent_descent_, incumbent, features, candidates, mo);
      } else if (gate_ == Gate::Open) {
        if (descent_turn_)
          batch = descent_round(incumbent_descent_, best_measured(1).front(), features, candidates, mo);
        descent_turn_ = !descent_turn_;
      }
      if (batch.empty()) batch = rank(features, candidates, mo);
      for (std::size_t index : batch) {
        if (ctx_->done()) break;
        ctx_->measure(index);
      }
    }
    ctx_->end_phase();
    // Confidence: cross-validated R² of the log objective over every valid measurement.
    Matrix x;
    x.cols = features.size();
    std::vector<float> y;
    for (const auto& m : ctx_->result().measurements)
      if (m.outcome.valid && m.outcome.objective > 0) {
        features.append(m.config, x.data);
        y.push_back(static_cast<float>(std::log(m.outcome.objective)));
      }
    const double r2 = cross_validated_r2(x, y, 5, mo);
    if (std::isfinite(r2)) ctx_->result().cv_r2 = r2;
  }

  // One predict round: the next configurations to measure, best first.
  std::vector<std::size_t> rank(const FeatureMap& features, const std::vector<std::size_t>& unmeasured,
                                const ModelOptions& mo) {
    const std::size_t round = ctx_->result().phases.back().rounds;
    const std::size_t batch = std::min(unmeasured.size(), 1 + ctx_->result().valid / 40);
    const bool restart = stagnant();
    std::vector<bool> local = local_step(unmeasured, round);
    if (!restart && local.empty() && spiky()) local = trust_region(unmeasured, batch);
    // The candidates this round can take before any other (a restart's far ones, else a local step's): when
    // there are at least a batch of them, every other candidate ranks after them whatever the model says, so
    // only they are predicted (predicting every unmeasured configuration is most of the tuner's time in a
    // large space). The same configurations are chosen, in the same order, as when every one is predicted.
    const std::vector<std::size_t> top = restart ? best_measured(3) : std::vector<std::size_t>{};
    std::vector<bool> first(unmeasured.size(), true);
    for (std::size_t i = 0; i < unmeasured.size(); ++i)
      first[i] = restart ? far_from_all(unmeasured[i], top) : (local.empty() || local[i]);
    std::vector<std::size_t> candidates;
    if (static_cast<std::size_t>(std::count(first.begin(), first.end(), true)) >= batch) {
      std::vector<bool> kept_local;
      for (std::size_t i = 0; i < unmeasured.size(); ++i)
        if (first[i]) {
          candidates.push_back(unmeasured[i]);
          if (!local.empty()) kept_local.push_back(local[i]);
        }
      local = std::move(kept_local);
    } else {
      candidates = unmeasured;
    }
    const Predictions pr = predict(features, candidates, mo);
    const std::vector<float>&mean = pr.mean, &spread = pr.spread, &p_valid = pr.p_valid;
    const bool both = pr.both;
    // Expected improvement over the best measured (log objective; the ensemble's spread as the
    // uncertainty), times the probability the configuration runs at all (constrained EI). Unlike a plain
    // lowest-prediction pick, it does not spend measurements on configurations the model already knows
    // to be as good as a measured one (a parameter with no effect).
    const double best_y = pr.best_y;
    std::vector<double> score(candidates.size());
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const double sigma = std::max(1e-9, static_cast<double>(spread[i]));
      const double gain = best_y - mean[i];
      const double z = gain / sigma;
      const double ei = gain * 0.5 * std::erfc(-z / std::sqrt(2.0)) + sigma * std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
      score[i] = -ei * (both ? p_valid[i] : 1.0);
    }
    // A candidate that differs from a measured configuration in one parameter would only confirm that the
    // parameter does not matter there (a padding flag, say) when the model predicts it within 0.5% of that
    // measurement, or when the parameter is inert so far: every pair of measurements that differ only in
    // it came out within 1%. Such a candidate goes after every other one.
    {
      std::unordered_map<std::uint64_t, std::vector<float>> masked;  // measured y by (config with p masked)
      const std::size_t nparams = space().parameters().size();
      for (const auto& m : ctx_->result().measurements)
        if (m.outcome.valid && m.outcome.objective > 0)
          for (std::size_t p = 0; p < nparams; ++p)
            masked[masked_hash(m.config, p)].push_back(static_cast<float>(std::log(m.outcome.objective)));
      std::vector<int> inert(nparams, -1);  // -1: no pair measured yet, 0: matters, 1: inert
      for (const auto& m : ctx_->result().measurements)
        if (m.outcome.valid && m.outcome.objective > 0)
          for (std::size_t p = 0; p < nparams; ++p) {
            const float self = static_cast<float>(std::log(m.outcome.objective));
            for (float v : masked[masked_hash(m.config, p)]) {
              if (v == self) continue;
              const int verdict = std::fabs(v - self) < 0.01 ? 1 : 0;
              inert[p] = inert[p] == -1 ? verdict : std::min(inert[p], verdict);
            }
          }
      for (std::size_t i = 0; i < candidates.size(); ++i)
        for (std::size_t p = 0; p < nparams; ++p) {
          auto it = masked.find(masked_hash(candidates[i], p));
          if (it == masked.end()) continue;
          if (inert[p] == 1 ||
              std::any_of(it->second.begin(), it->second.end(), [&](float v) { return std::fabs(v - mean[i]) < 0.005; })) {
            score[i] += 1e6;
            break;
          }
        }
    }
    if (!local.empty())
      for (std::size_t i = 0; i < candidates.size(); ++i)
        if (!local[i]) score[i] += 1e7;  // EI scores are <= 0
    // Restart: once the search has stagnated, this round takes only candidates that differ from each of the
    // 3 best configurations measured in at least half the parameters (the model ranks them). A space can have
    // many basins that no one- or two-parameter step leaves (9 local minima in the measured convolution
    // space); without restarts the search keeps refining the first good basin found. (Centring the local
    // steps on the new region after a restart was tried: worse on unseen seeds.)
    if (restart) {
      for (std::size_t i = 0; i < candidates.size(); ++i)
        if (!far_from_all(candidates[i], top)) score[i] += 1e8;
      restart_valid_ = ctx_->result().valid;
      ++ctx_->result().phases.back().restarts;
    }
    return lowest(candidates, score, batch);
  }

  // What the model says of `candidates`, trained on every measurement so far: the regression's mean and spread
  // of the log objective (0 and 1 before there are two valid measurements), and, when both valid and invalid
  // configurations were measured, the classifier's probability that each runs.
  struct Predictions {
    std::vector<float> mean, spread, p_valid;
    bool both = false;   // p_valid is set
    double best_y = 0;   // the best log objective measured
  };
  Predictions predict(const FeatureMap& features, const std::vector<std::size_t>& candidates, const ModelOptions& mo) const {
    Matrix valid_x, all_x;
    valid_x.cols = all_x.cols = features.size();
    std::vector<float> y, ok;
    for (const auto& m : ctx_->result().measurements) {
      features.append(m.config, all_x.data);
      ok.push_back(m.outcome.valid ? 1.0f : 0.0f);
      if (m.outcome.valid && m.outcome.objective > 0) {
        features.append(m.config, valid_x.data);
        y.push_back(static_cast<float>(std::log(m.outcome.objective)));
      }
    }
    // A round that predicts most of the space predicts all of it from rows prepared once (the same values,
    // without rebuilding the features and xgboost's matrix every round); a local step's few candidates alone.
    const bool whole_space = 4 * candidates.size() >= 3 * space().size() &&
                             space().size() * features.size() <= kMaxPreparedFeatureValues;
    Matrix cx;
    if (whole_space && !all_rows_) {
      Matrix all;
      all.cols = features.size();
      all.data.reserve(space().size() * all.cols);
      for (std::size_t c = 0; c < space().size(); ++c) features.append(c, all.data);
      all_rows_ = std::make_unique<PreparedRows>(all);
    } else if (!whole_space) {
      cx.cols = features.size();
      cx.data.reserve(candidates.size() * cx.cols);
      for (std::size_t c : candidates) features.append(c, cx.data);
    }
    // The model's predictions of the candidates, in their order.
    const auto predict_candidates = [&](const TreeEnsemble& model, std::vector<float>& mean, std::vector<float>* spread) {
      if (!whole_space) return model.predict(cx, mean, spread);
      std::vector<float> all_mean, all_spread;
      model.predict(*all_rows_, all_mean, spread ? &all_spread : nullptr);
      mean.resize(candidates.size());
      if (spread) spread->resize(candidates.size());
      for (std::size_t i = 0; i < candidates.size(); ++i) {
        mean[i] = all_mean[candidates[i]];
        if (spread) (*spread)[i] = all_spread[candidates[i]];
      }
    };
    Predictions out;
    if (y.size() >= 2) {
      TreeEnsemble regression;
      regression.fit(valid_x, y, mo);
      predict_candidates(regression, out.mean, &out.spread);
    } else {
      out.mean.assign(candidates.size(), 0.0f);
      out.spread.assign(candidates.size(), 1.0f);
    }
    out.both = std::find(ok.begin(), ok.end(), 0.0f) != ok.end() && std::find(ok.begin(), ok.end(), 1.0f) != ok.end();
    if (out.both) {
      TreeEnsemble classifier;
      ModelOptions co = mo;
      co.members = 1;
      classifier.fit(all_x, ok, co, true);
      predict_candidates(classifier, out.p_valid, nullptr);
    }
    out.best_y = y.empty() ? 0.0 : *std::min_element(y.begin(), y.end());
    return out;
  }

  // The `batch` candidates of lowest score, lowest first (ties: the earlier candidate).
  static std::vector<std::size_t> lowest(const std::vector<std::size_t>& candidates, const std::vector<double>& score,
                                         std::size_t batch) {
    std::vector<std::size_t> order(candidates.size());
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + batch, order.end(),
                      [&](std::size_t a, std::size_t b) { return score[a] < score[b] || (score[a] == score[b] && a < b); });
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < batch; ++i) out.push_back(candidates[order[i]]);
    return out;
  }

  std::vector<double> valid_objectives() const {
    std::vector<double> v;
    for (const auto& m : ctx_->result().measurements)
      if (m.outcome.valid) v.push_back(m.outcome.objective);
    return v;
  }

  // Where a descent is: the configuration it is around and the neighbourhood it has reached there.
  struct Descent {
    std::size_t centre = SearchSpace::npos;
    int level = 0;
  };

  // One round of the late descent: a batch of the unmeasured neighbours of `centre` (the incumbent, or in the
  // final descent the runner-up) from the first of its neighbourhoods that has any (in_descent_neighbourhood;
  // back to the first whenever the centre changed), lowest predicted mean first, those the failure classifier
  // gives under 50% last. Batches are the model rounds' size. Empty when every neighbourhood is measured (the
  // model's own round then).
  // Kernel Tuner's hybrid_vndx intensifies through such neighbourhoods for its whole budget; here it only
  // polishes the end of a search that is flat near its best, where the configurations within a few tenths of
  // a percent of each other differ in one or two parameters and the model's global picks no longer separate them.
  std::vector<std::size_t> descent_round(Descent& descent, std::size_t centre, const FeatureMap& features,
                                         const std::vector<std::size_t>& unmeasured, const ModelOptions& mo) {
    if (centre != descent.centre) descent = Descent{centre, 0};
    std::vector<std::size_t> candidates;
    for (; descent.level < kDescentNeighbourhoods; ++descent.level) {
      for (std::size_t c : unmeasured)
        if (in_descent_neighbourhood(space().config(c), space().config(centre), descent.level)) candidates.push_back(c);
      if (!candidates.empty()) break;
    }
    if (candidates.empty()) return {};
    ++ctx_->result().phases.back().descent_rounds;
    const Predictions pr = predict(features, candidates, mo);
    std::vector<double> score(pr.mean.begin(), pr.mean.end());
    if (pr.both)
      for (std::size_t i = 0; i < candidates.size(); ++i)
        if (pr.p_valid[i] < 0.5f) score[i] += 1e6;
    return lowest(candidates, score, std::min(candidates.size(), 1 + ctx_->result().valid / 40));
  }

  // Every other round is a local step around the best configuration measured so far: the candidates are
  // those that change one parameter, the parameter cycling from round to round, and optionally one other
  // parameter with it, and the model picks among them. The model's global ranking finds the right region;
  // these steps make sure every parameter is varied around its best point, where a model trained on few
  // points often extrapolates a parameter's effect from another region. Changing a second parameter too
  // lets the step leave a configuration that no single change improves (restrictions and interactions
  // make such local minima common: on the measured convolution space, 9 of them).
  // Returns which candidates the step allows, or nothing in the other rounds or when no candidate is near.
  std::vector<bool> local_step(const std::vector<std::size_t>& candidates, std::size_t round) const {
    if (round % 2 != 0) return {};
    const std::size_t incumbent = best_measured(1).front();
    const std::size_t nparams = space().parameters().size();
    for (std::size_t attempt = 0; attempt < nparams; ++attempt) {
      const std::size_t p = (round / 2 + attempt) % nparams;
      std::vector<bool> near(candidates.size());
      bool any = false;
      for (std::size_t i = 0; i < candidates.size(); ++i) {
        near[i] = space().config(candidates[i])[p] != space().config(incumbent)[p] && hamming(candidates[i], incumbent) <= 2;
        any = any || near[i];
      }
      if (any) return near;
    }
    return {};
  }

  // Whether most valid measurements so far are more than kSpikyMedianRatio times the best one. There the
  // model's global picks away from the incumbent mostly land on the slow majority (on the measured MI250X
  // convolution space, 32 of 70 model-guided measurements were 10x the optimum or worse), while the
  // configurations near the optimum are a few parameter changes from good ones. Spaces whose median is within
  // a few times the best (every NVIDIA space measured, both of ours) never open it, and search as before.
  bool spiky() const {
    std::vector<double> v;
    for (const auto& m : ctx_->result().measurements)
      if (m.outcome.valid && m.outcome.objective > 0) v.push_back(m.outcome.objective);
    if (v.empty()) return false;
    const double best = *std::min_element(v.begin(), v.end());
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2] > kSpikyMedianRatio * best;
  }

  // A global round on a spiky space: the candidates within kTrustRadius parameter changes of the incumbent,
  // or nothing when fewer than a batch of them are left (the round is then global as elsewhere).
  std::vector<bool> trust_region(const std::vector<std::size_t>& candidates, std::size_t batch) const {
    const std::size_t incumbent = best_measured(1).front();
    std::vector<bool> near(candidates.size());
    std::size_t count = 0;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      near[i] = hamming(candidates[i], incumbent) <= kTrustRadius;
      count += near[i] ? 1 : 0;
    }
    return count >= batch ? near : std::vector<bool>{};
  }

  // Whether `config` differs from each of `others` in at least half the parameters (a restart's candidates).
  bool far_from_all(std::size_t config, const std::vector<std::size_t>& others) const {
    const std::size_t nparams = space().parameters().size();
    return std::none_of(others.begin(), others.end(), [&](std::size_t t) { return 2 * hamming(config, t) < nparams; });
  }

  // The valid measurements so far, best first.
  std::vector<const MeasurementRecord*> valid_best_first() const {
    std::vector<const MeasurementRecord*> valid;
    for (const auto& m : ctx_->result().measurements)
      if (m.outcome.valid) valid.push_back(&m);
    std::sort(valid.begin(), valid.end(), [](auto* a, auto* b) { return a->outcome.objective < b->outcome.objective; });
    return valid;
  }

  // The `n` best valid configurations measured so far.
  std::vector<std::size_t> best_measured(std::size_t n) const {
    const std::vector<const MeasurementRecord*> valid = valid_best_first();
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < valid.size() && i < n; ++i) out.push_back(valid[i]->config);
    return out;
  }

  // The runner-up's configuration (late_descent.hpp), if there is one.
  std::optional<std::size_t> runner_up_configuration() const {
    const std::vector<const MeasurementRecord*> valid = valid_best_first();
    std::vector<double> objectives;
    std::vector<ConfigView> configs;
    for (const MeasurementRecord* m : valid) {
      objectives.push_back(m->outcome.objective);
      configs.push_back(space().config(m->config));
    }
    const std::optional<std::size_t> at = runner_up(objectives, configs);
    if (!at) return std::nullopt;
    return valid[*at]->config;
  }

  // Whether the last kStagnationWindow valid measurements, all taken since the last restart, improved the
  // best measured before them by less than kStagnationGain.
  bool stagnant() const {
    if (ctx_->result().valid < restart_valid_ + kStagnationWindow) return false;
    double window_best = std::numeric_limits<double>::infinity(), earlier_best = window_best;
    std::size_t seen = 0;
    for (auto it = ctx_->result().measurements.rbegin(); it != ctx_->result().measurements.rend(); ++it) {
      if (!it->outcome.valid) continue;
      double& into = seen < kStagnationWindow ? window_best : earlier_best;
      into = std::min(into, it->outcome.objective);
      ++seen;
    }
    return std::isfinite(earlier_best) && window_best > (1.0 - kStagnationGain) * earlier_best;
  }

  // A hash of the configuration with parameter `p` left out.
  std::uint64_t masked_hash(std::size_t config, std::size_t p) const {
    ConfigView c = space().config(config);
    std::uint64_t h = 1469598103934665603ull ^ p;
    for (std::size_t q = 0; q < c.size(); ++q) {
      h ^= (q == p ? 0xffffull : c[q]) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h *= 1099511628211ull;
    }
    return h;
  }

  // The number of parameters in which two configurations differ.
  std::size_t hamming(std::size_t a, std::size_t b) const {
    return changed_parameters(space().config(a), space().config(b));
  }

  SearchContext* ctx_ = nullptr;
  mutable std::unique_ptr<PreparedRows> all_rows_;  // every configuration's features, once a round needs them
  std::size_t restart_valid_ = 0;  // valid measurements when the last restart was made
  enum class Gate { Undecided, Open, Closed };
  Gate gate_ = Gate::Undecided;    // the late descent's
  Descent incumbent_descent_, runner_up_descent_;
  bool descent_turn_ = true;       // whether the next round, the gate open, is the descent's
  std::size_t shared_rounds_ = 0;  // final-descent rounds so far shared between the incumbent and the runner-up
};

}  // namespace

std::unique_ptr<SearchStrategy> make_model_strategy() { return std::make_unique<ModelSearch>(); }

}  // namespace rpl::autotune
