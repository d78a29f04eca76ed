// --strategy exhaustive: every valid configuration, in enumeration order (the budget is the whole space).
#include "autotune/strategy.hpp"

namespace rpl::autotune {
namespace {

class Exhaustive : public SearchStrategy {
 public:
  void run(SearchContext& ctx) override {
    ctx.begin_phase("exhaustive");
    ctx.set_budget(ctx.space().size());
    for (std::size_t i = 0; i < ctx.space().size() && !ctx.stopped(); ++i) ctx.measure(i);
    ctx.end_phase();
  }
};

}  // namespace

std::unique_ptr<SearchStrategy> make_exhaustive_strategy() { return std::make_unique<Exhaustive>(); }

}  // namespace rpl::autotune
