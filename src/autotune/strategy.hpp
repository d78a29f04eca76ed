#pragma once
// One search strategy per file, behind one interface (as Kernel Tuner keeps one module per strategy): a
// strategy decides which configurations to measure, in which order, and when to stop early; the context
// (search_context.hpp) measures them and keeps the books.
#include <memory>

#include "autotune/search_context.hpp"
#include "autotune/tuner.hpp"

namespace rpl::autotune {

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  // Measures configurations through `context` until context.done() or the strategy has nothing left.
  virtual void run(SearchContext& context) = 0;
};

std::unique_ptr<SearchStrategy> make_exhaustive_strategy();  // strategy_exhaustive.cpp
std::unique_ptr<SearchStrategy> make_random_strategy();      // strategy_random.cpp
std::unique_ptr<SearchStrategy> make_model_strategy();       // strategy_model.cpp
std::unique_ptr<SearchStrategy> make_strategy(Strategy strategy);

}  // namespace rpl::autotune
