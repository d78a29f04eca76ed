// --strategy random: uniform over the valid configurations, without repetition (the baseline).
#include <algorithm>
#include <numeric>

#include "autotune/strategy.hpp"

namespace rpl::autotune {
namespace {

class RandomSearch : public SearchStrategy {
 public:
  void run(SearchContext& ctx) override {
    ctx.begin_phase("random");
    std::vector<std::size_t> order(ctx.space().size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), ctx.rng());
    for (std::size_t i = 0; i < order.size() && !ctx.done(); ++i) ctx.measure(order[i]);
    ctx.end_phase();
  }
};

}  // namespace

std::unique_ptr<SearchStrategy> make_random_strategy() { return std::make_unique<RandomSearch>(); }

}  // namespace rpl::autotune
