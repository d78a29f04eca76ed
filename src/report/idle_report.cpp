// See idle_report.hpp.
#include "report/idle_report.hpp"

#include <fmt/format.h>

namespace rpl::report {
namespace {

std::string amount(double ns) {
  if (ns >= 1e6) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.1f} us", ns / 1e3);
}

double share(double part, double whole) { return whole > 0 ? part / whole : 0.0; }

}  // namespace

nlohmann::json window_json(const analysis::AnalysisWindow& w) {
  return {{"source", analysis::to_string(w.source)},
          {"requested_range", w.requested_range.empty() ? nlohmann::json(nullptr) : nlohmann::json(w.requested_range)},
          {"range_instances", w.range_instances},
          {"start_ns", w.start},
          {"end_ns", w.end},
          {"span_ns", static_cast<double>(w.end - w.start)},
          {"dropped_dispatches", w.dropped_dispatches},
          {"dropped_copies", w.dropped_copies},
          {"description", w.description}};
}

nlohmann::json idle_json(const analysis::IdleBreakdown& i) {
  return {{"gaps", i.gaps},
          {"idle_ns", i.idle_ns},
          {"launch_latency_ns", i.launch_ns},
          {"host_sync_ns", i.sync_ns},
          {"host_work_ns", i.host_ns},
          {"unattributed_ns", i.unattributed_ns},
          {"path_nodes", i.path_nodes},
          {"median_gap_ns", i.median_gap_ns},
          {"median_node_ns", i.median_node_ns},
          {"launches_per_second", i.launches_per_second}};
}

std::string idle_breakdown_text(const analysis::IdleBreakdown& i) {
  std::string s = fmt::format("launch latency {} ({:.0f}%), host synchronisation {} ({:.0f}%), host work {} ({:.0f}%)",
                              amount(i.launch_ns), 100 * share(i.launch_ns, i.idle_ns), amount(i.sync_ns),
                              100 * share(i.sync_ns, i.idle_ns), amount(i.host_ns), 100 * share(i.host_ns, i.idle_ns));
  if (i.unattributed_ns > 0)
    s += fmt::format(", no launch call recorded {} ({:.0f}%)", amount(i.unattributed_ns),
                     100 * share(i.unattributed_ns, i.idle_ns));
  return s;
}

std::optional<nlohmann::json> launch_bound_finding(const app::AnalyzeResults& r) {
  const auto& i = r.idle;
  const double path = r.dag.critical_path_ns;
  const double idle_fraction = share(i.idle_ns, path);
  if (path <= 0 || idle_fraction < kLaunchBoundIdleFraction || i.median_node_ns <= 0 ||
      i.median_gap_ns < kLaunchBoundGapPerNode * i.median_node_ns)
    return std::nullopt;
  // The largest attributed cause leads the message; its remedy comes first.
  const char* cause = "the host launches work too slowly (host work between launches)";
  const char* remedy = "capture the step in a CUDA / HIP graph, fuse small kernels (torch.compile), move CPU work "
                       "off the launching thread";
  if (i.sync_ns >= i.host_ns && i.sync_ns >= i.launch_ns) {
    cause = "host synchronisation drains the GPU's queue (a .item(), .cpu() or stream/device synchronise per step)";
    remedy = "remove per-step host synchronisation (keep values on the GPU, read them every N steps), then "
             "capture the step in a CUDA / HIP graph";
  } else if (i.launch_ns >= i.host_ns) {
    cause = "the launch calls themselves take longer than the kernels run";
    remedy = "fewer, larger launches: a CUDA / HIP graph for the step, kernel fusion (torch.compile)";
  }
  std::string message = fmt::format(
      "launch bound: {:.0f}% of the critical path is idle; the median gap before a launch is {} against a median "
      "kernel of {} ({:.0f} launches/s); {}. Idle time: {}",
      100 * idle_fraction, amount(i.median_gap_ns), amount(i.median_node_ns), i.launches_per_second, cause,
      idle_breakdown_text(i));
  nlohmann::json evidence = idle_json(i);
  evidence["idle_fraction"] = idle_fraction;
  evidence["critical_path_ns"] = path;
  evidence["threshold_idle_fraction"] = kLaunchBoundIdleFraction;
  evidence["threshold_gap_per_node"] = kLaunchBoundGapPerNode;
  evidence["window"] = r.window.description;
  return nlohmann::json{{"id", "launch_bound"}, {"severity", "warning"}, {"kernel", nullptr},
                        {"message", std::move(message)}, {"evidence", std::move(evidence)},
                        {"remedy", remedy}};
}

}  // namespace rpl::report
