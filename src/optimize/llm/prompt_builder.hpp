#pragma once
// The prompts of the LLM proposer: templates in files (share/prompts/*.txt, compiled in; --llm-prompt-dir
// overrides them file by file; syntax in share/prompts/README.md) filled with what our analysis measured.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "optimize/proposer.hpp"

namespace rpl::optimize::llm {

struct PromptTemplates {
  std::string system, propose, repair;
  std::map<std::string, std::string> origin;  // template name -> "built-in" or the override file's path
};

// The built-in templates, each replaced by DIR/<name>.txt where that file exists. Throws rpl::Error(Usage)
// naming the file for an unreadable override or an unknown placeholder.
PromptTemplates load_prompt_templates(const std::string& override_dir);

// Replaces every {{name}} with values.at(name); an unknown {{name}} throws rpl::Error(Usage) naming
// `template_name`. Text that is not {{identifier}} is kept as written.
std::string render_template(const std::string& text, const std::map<std::string, std::string>& values,
                            const std::string& template_name);

// The analysis facts in prose (ProposalRequest::analysis). Understood keys, each optional:
//   bottleneck {primary, secondary: {label, rule, evidence: [{metric, value, comparison, threshold, passed}]},
//               notes}
//   roofline {bound, gflops, hbm_gbps, arithmetic_intensity, fraction_of_roof, status}
//   deep_analysis {stall_breakdown: [{name, fraction}], achieved_occupancy, issue_utilization, ...}
//   occupancy (0..1), occupancy_limiter, resources {...}, launch {grid, block, shared_bytes, ...},
//   total_ns, count or launches, median_ns, critical_path_fraction, share_of_gpu_time
// (the shape of analysis.json's ranking entries). Any other key is listed as-is, so nothing measured is dropped.
// A whole-application document, {"kernels": [...]} or analysis.json's {"ranking": {"kernels": [...]}}, is
// reduced to the entry whose (possibly demangled) name is `kernel_name`.
std::string render_measured_facts(const nlohmann::json& analysis, const std::string& kernel_name);

std::string render_constraints(const std::vector<std::string>& constraints);

// One earlier candidate and what happened to it (every verdict observe() saw, in order).
struct HistoryEntry {
  std::string candidate_id;
  int round = 0;
  std::string description;
  std::vector<GateVerdict> verdicts;
  std::string failure;  // a reply with no usable code: the reason (then verdicts is empty)
};
std::string render_history(const std::vector<HistoryEntry>& history);

}  // namespace rpl::optimize::llm
