#pragma once
// The guarded optimizer's loop (issue 15): baseline, ranking, capture, proposals, the gates, end to end, the
// atomic source replacement, and the optimize.json document (schemas/optimize.schema.json).
#include <memory>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "optimize/environment.hpp"
#include "optimize/equivalence.hpp"
#include "optimize/proposer.hpp"
#include "optimize/source_transaction.hpp"

namespace rpl::optimize {

struct OptimizeOptions {
  std::string source;                 // the kernel source file
  std::string build_command;          // "" = none
  std::string kernel_regex;           // "" = the top-ranked kernel defined in the source
  int max_candidates = 8;
  unsigned runs = 5;                  // profile runs, baseline and end to end
  unsigned perf_rounds = 5;           // alternated fresh-process replays per code object
  unsigned perf_iterations = 20;      // launches per replay process
  double min_speedup = 1.02;
  double alpha = 0.05;                // significance of the Mann-Whitney test
  Tolerance tolerance;
  // --validate-command CMD (optimize/validation_hook.hpp): run on every equivalence input after the built-in
  // comparison passed; a non-zero exit rejects the candidate. "" = none. Checked on the original's own
  // second replay first: a command that rejects the original is a usage error.
  std::string validate_command;
  double validate_timeout_s = 600;
  bool dry_run = false;
  // The application compiles the kernel source itself at run time (NVRTC, hipRTC): without --build the end-to-end
  // gate can still rerun it. Otherwise, with no build command, nothing is written (the run behaves as --dry-run).
  bool runtime_compiled = false;
  bool counters = true;               // the baseline's counter pass (roofline, FLOP speed of light); --no-counters
  bool keep_going = false;
  // Deterministic build verification: the original and every candidate are compiled twice and the two code
  // objects compared byte for byte; a build that differs is reported (--no-build-check turns it off).
  bool build_check = true;
  std::string output_dir = "rocm-perf-optimize";
  std::vector<std::string> app;       // for the document
  int max_repairs = 2;                // compile-repair requests per candidate (the LLM's --llm-repair-rounds)
  // Called on the document before each write of optimize.json (the LLM proposer adds its usage summary).
  std::function<void(nlohmann::json&)> annotate;
};

struct OptimizeResult {
  nlohmann::json document;            // schemas/optimize.schema.json
  int exit_code = 0;
};

// Runs the whole loop. Throws rpl::Error for bad input (source missing or not parsing, kernel not found,
// build failing on the original, application failing) before the source is ever touched.
OptimizeResult run_optimize(const OptimizeOptions& options, Environment& env, std::vector<std::unique_ptr<Proposer>>& proposers,
                            const StepHook& hook = {});

// The terminal summary of an optimize.json document.
std::string optimize_summary_text(const nlohmann::json& document);

// A unified diff of two texts (3 lines of context), "" when equal.
std::string unified_diff(const std::string& a, const std::string& b, const std::string& name);

}  // namespace rpl::optimize
