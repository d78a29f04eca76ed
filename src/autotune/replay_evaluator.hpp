#pragma once
// Capture-dir mode: tunes a kernel inside a real application without rerunning the application. Each
// configuration is compiled into a code object (--compile-template) and timed with `replay full-vm
// --code-object` on the captured real inputs; its memory afterwards is compared with the original kernel's
// replay (within a relative tolerance, since a different tiling sums in another order), so a configuration
// that computes something else is invalid, never fast. The launch geometry is the captured one: tune
// parameters that keep the grid and block (K step, unrolling, padding, vector width, ...), and keep the
// kernel's symbol name the same in every build (extern "C" or a non-template kernel).
#include <string>

#include "autotune/evaluator.hpp"

namespace rpl::autotune {

struct ReplayEvaluatorOptions {
  std::string capture_dir;
  std::string kernel_source;
  std::string output_dir;
  unsigned iterations = 20;  // replayed launches per configuration; the median counts
  double tolerance = 1e-3;   // relative; 0: bit-exact
  double timeout_s = 0;
};

class ReplayEvaluator : public Evaluator {
 public:
  // The template may use the parameters, {OUT} (the code object to write) and {SOURCE} (--kernel-source).
  ReplayEvaluator(const std::string& compile_template, const SearchSpace& space, ReplayEvaluatorOptions options);
  Outcome evaluate(const SearchSpace& space, ConfigView config, std::size_t sequence) override;
  nlohmann::ordered_json describe() const override;

 private:
  void replay_reference();
  CommandTemplate compile_;
  ReplayEvaluatorOptions options_;
  std::string reference_dir_;
  bool have_reference_ = false;
};

// Compares two --dump-dir folders region by region as float32 arrays: "" when every value is within
// `tolerance` (|a - b| <= tolerance * (1 + |b|), NaN equal to NaN; 0 means bit-exact), else what differs.
std::string compare_dumps(const std::string& reference_dir, const std::string& dir, double tolerance);

}  // namespace rpl::autotune
