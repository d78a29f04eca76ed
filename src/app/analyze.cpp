#include "app/analyze.hpp"

#include <unistd.h>

#include "store/rocpd_reader.hpp"
#include "support/log.hpp"
#include "support/progress.hpp"

namespace rpl::app {
namespace {
// Wired to the occupancy analysis when it lands.
std::optional<KernelOccupancy> kernel_occupancy(const Trace&, const analysis::KernelStats&) { return std::nullopt; }
}  // namespace

AnalyzeResults run_analyze(const AnalyzeOptions& options) {
  AnalyzeResults r;
  r.inputs = options.databases;

  rocpd::ReadOptions read;
  read.lenient = options.lenient;
  Progress progress(options.show_progress);
  if (options.show_progress)
    read.progress = [&](std::string_view file, std::size_t rows) {
      progress.update(fmt::format("reading {}: {} rows", file, rows));
    };
  r.trace = rocpd::read_databases(options.databases, read);
  progress.update("analysing");

  r.stats = analysis::compute_kernel_stats(r.trace);
  r.occupancy.resize(r.stats.kernels.size());
  for (std::size_t i = 0; i < r.stats.kernels.size(); ++i)
    r.occupancy[i] = kernel_occupancy(r.trace, r.stats.kernels[i]);

  analysis::DagOptions dag;
  dag.infer_cross_stream = options.infer_dependencies;
  r.inferred_edges = options.infer_dependencies;
  r.dag = analysis::analyze_critical_path(r.trace, dag);
  if (!options.what_if.empty()) r.what_if = analysis::run_what_if(r.trace, options.what_if, dag);
  progress.done();
  return r;
}

}  // namespace rpl::app
