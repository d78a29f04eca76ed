// Writes a synthetic distributed job (store/synthetic_job.hpp) for the scale benchmark of
// `rocm-perf analyze DIR`: R rank databases of N dispatches each, with a straggler and skewed node clocks.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "store/synthetic_job.hpp"
#include "support/errors.hpp"

int main(int argc, char** argv) {
  rpl::rocpd::SyntheticJob job;
  uint64_t dispatches = 100000;
  CLI::App app("Generate a synthetic multi-rank rocpd trace");
  app.add_option("--ranks", job.ranks)->capture_default_str();
  app.add_option("--ranks-per-node", job.ranks_per_node)->capture_default_str();
  app.add_option("--dispatches", dispatches, "per rank")->capture_default_str();
  app.add_option("--kernels-per-step", job.kernels_per_step)->capture_default_str();
  app.add_option("--clock-skew-ns", job.node_clock_skew_ns)->capture_default_str();
  app.add_option("--straggler", job.straggler_rank)->capture_default_str();
  app.add_option("--straggler-delay-ns", job.straggler_delay_ns)->capture_default_str();
  app.add_option("-o,--output-dir", job.output_dir)->required();
  CLI11_PARSE(app, argc, argv);
  job.steps = std::max<uint64_t>(1, dispatches / (job.kernels_per_step + 1));
  try {
    auto paths = rpl::rocpd::write_synthetic_job(job);
    fmt::print(stderr, "wrote {} rank databases of {} dispatches each under {}\n", paths.size(),
               job.steps * (job.kernels_per_step + 1), job.output_dir);
  } catch (const rpl::Error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return static_cast<int>(e.code());
  }
  return 0;
}
