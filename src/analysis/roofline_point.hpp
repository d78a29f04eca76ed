#pragma once
// One roofline point from counter statistics, inside the analysis layer: the counter set's terms summed per
// compute class and memory level, placed against the device's ceilings (the roof, the bound, the above-roof
// checks). compute_roofline (roofline.cpp) folds a trace's samples into CounterStats slots and evaluates
// them here; evaluate_counters (roofline.hpp) is the public form.
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/roofline.hpp"

namespace rpl::analysis {

struct QuantitySums;  // roofline_point.cpp

// A counter set whose terms point at slots of a CounterStats array.
class RooflineEvaluator {
 public:
  struct Term {
    int slot = -1;
    int fallback = -1;  // "X" for a term named "X_sum"
    double coefficient = 0;
    std::string_view counter;
  };
  struct Quantity {
    const RooflineQuantity* q = nullptr;
    std::vector<Term> terms;
  };

  // slot_of(counter name): the counter's index in the CounterStats arrays that evaluate() is given, -1: none.
  template <typename SlotOf>
  RooflineEvaluator(RooflineCounterSet set, SlotOf&& slot_of) : set_(std::move(set)) {
    for (const auto& q : set_.quantities) {
      Quantity rq{&q, {}};
      for (const auto& t : q.terms) {
        Term term{slot_of(t.counter), -1, t.coefficient, t.counter};
        if (t.counter.size() > 4 && t.counter.substr(t.counter.size() - 4) == "_sum")
          term.fallback = slot_of(t.counter.substr(0, t.counter.size() - 4));
        rq.terms.push_back(term);
      }
      quantities_.push_back(std::move(rq));
    }
  }

  const RooflineCounterSet& set() const { return set_; }

  // list_missing = false (per-dispatch points): the missing counters are counted in one reason instead of
  // listed; the kernel's point lists them, and a dispatch of a multi-pass run misses most of them.
  RooflinePoint evaluate(const CounterStats* stats, const Ceilings& ceilings, double tolerance,
                         bool list_missing = true) const;

 private:
  // Adds up every quantity's terms into the point's FLOPs per class; the byte levels go into the sums.
  QuantitySums sum_quantities(const CounterStats* stats, bool list_missing, RooflinePoint& p) const;

  RooflineCounterSet set_;
  std::vector<Quantity> quantities_;
};

}  // namespace rpl::analysis
