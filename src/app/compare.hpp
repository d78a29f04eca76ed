#pragma once
// The `compare` application: reads two runs (a rocpd database, a directory of one run's databases, or a
// `rocm-perf profile` output directory whose runs/run-K/ give the spread between runs), analyses each as `analyze`
// does and compares them (analysis/run_compare).
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_compare.hpp"

namespace rpl::app {

struct CompareOptions {
  std::string a, b;                   // the base run and the run compared with it
  std::optional<std::string> range;   // --range NAME: both sides' window (analyze's)
  bool lenient = false;
  std::optional<std::string> ceilings_file;  // measured ceilings for both sides' roofline points
  bool show_progress = false;
};

// The runs one input holds, each as its databases: a file is one run; a directory with runs/run-K/ (what
// `profile` keeps) one run per run-K, in K order; any other directory one run of every *.db under it.
// rpl::Error(InputMissing) names a path that does not exist or a directory without a database.
std::vector<std::vector<std::string>> compare_input_runs(const std::string& path);

// rpl::Error with the input's side ("A: ...", "B: ...") in front of the reason for an input that cannot be read.
analysis::CompareResult run_compare(const CompareOptions& options);

}  // namespace rpl::app
