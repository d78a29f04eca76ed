#include "autotune/tuner.hpp"

#include <fmt/core.h>

#include <cmath>

#include "autotune/search_context.hpp"
#include "autotune/strategy.hpp"
#include "support/errors.hpp"

namespace rpl::autotune {

std::unique_ptr<SearchStrategy> make_strategy(Strategy strategy) {
  switch (strategy) {
    case Strategy::Exhaustive: return make_exhaustive_strategy();
    case Strategy::Random: return make_random_strategy();
    case Strategy::Model: return make_model_strategy();
  }
  throw Error(ExitCode::Internal, "unknown search strategy");
}

Strategy parse_strategy(const std::string& text) {
  if (text == "model") return Strategy::Model;
  if (text == "random") return Strategy::Random;
  if (text == "exhaustive") return Strategy::Exhaustive;
  throw Error(ExitCode::Usage, fmt::format("--strategy \"{}\": expected model, random or exhaustive", text));
}

const char* strategy_name(Strategy s) {
  switch (s) {
    case Strategy::Model: return "model";
    case Strategy::Random: return "random";
    case Strategy::Exhaustive: return "exhaustive";
  }
  return "?";
}

Budget parse_budget(const std::string& text, std::size_t valid_configurations) {
  Budget b{text, 0};
  const bool percent = !text.empty() && text.back() == '%';
  const std::string number = percent ? text.substr(0, text.size() - 1) : text;
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (percent && *end == '\0' && !number.empty() && v > 100)
    throw Error(ExitCode::Usage, fmt::format("--budget \"{}\": a percentage of the space is at most 100% (a number of "
                                             "configurations larger than the space is the whole space)", text));
  if (number.empty() || *end != '\0' || !(v > 0) || (!percent && v != std::floor(v)))
    throw Error(ExitCode::Usage, fmt::format("--budget \"{}\": expected a positive whole number of configurations "
                                             "or a percentage such as 2%", text));
  const double n = percent ? std::ceil(v / 100.0 * static_cast<double>(valid_configurations)) : v;
  // Clamped before the conversion: a number past the range of size_t (--budget 18446744073709551616) must not wrap.
  const double clamped = std::min(n, static_cast<double>(valid_configurations));
  b.configurations = std::max<std::size_t>(1, static_cast<std::size_t>(clamped));
  return b;
}

TuneResult tune(const SearchSpace& space, Evaluator& evaluator, Cache* cache,
                const std::unordered_map<std::string, CachedMeasurement>* imported, const TuneOptions& options) {
  SearchContext context(space, evaluator, cache, imported, options);
  make_strategy(options.strategy)->run(context);
  return context.finish();
}

}  // namespace rpl::autotune
