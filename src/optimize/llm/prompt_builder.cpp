#include "optimize/llm/prompt_builder.hpp"

#include <fmt/core.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "optimize/llm/builtin_prompts.hpp"  // generated from share/prompts/*.txt
#include "support/errors.hpp"

namespace rpl::optimize::llm {
namespace {

const std::set<std::string>& known_placeholders(const std::string& name) {
  static const std::map<std::string, std::set<std::string>> known = {
      {"system", {"language", "kernel_name"}},
      {"propose", {"language", "kernel_name", "source_path", "source", "round", "candidate_index", "candidate_count",
                   "diversity_hint", "measured_facts", "constraints", "history"}},
      {"repair", {"language", "kernel_name", "compiler_messages", "candidate_source", "attempt", "max_attempts",
                  "constraints"}}};
  return known.at(name);
}

std::string load_one(const std::string& dir, const std::string& name, const char* builtin, std::string& origin) {
  origin = "built-in";
  if (dir.empty()) return builtin;
  std::filesystem::path path = std::filesystem::path(dir) / (name + ".txt");
  if (!std::filesystem::exists(path)) return builtin;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ExitCode::Usage, fmt::format("--llm-prompt-dir: cannot read {}", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  origin = path.string();
  // Check the placeholders now, before anything is sent.
  std::map<std::string, std::string> probe;
  for (const auto& k : known_placeholders(name)) probe[k] = "";
  render_template(text.str(), probe, path.string());
  return text.str();
}

std::string number(const nlohmann::json& v, int digits = 3) {
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number()) return fmt::format("{:.{}g}", v.get<double>(), digits);
  if (v.is_null()) return "unknown";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string percent(const nlohmann::json& v) {
  return v.is_number() ? fmt::format("{:.1f}%", 100.0 * v.get<double>()) : std::string("unknown");
}

void render_label(std::ostringstream& out, const char* which, const nlohmann::json& label) {
  if (!label.is_object()) return;
  out << fmt::format("- {} bottleneck: {} (rule {}{})\n", which, label.value("label", "?"), label.value("rule", "?"),
                     label.value("fallback", false) ? ", fallback" : "");
  for (const auto& e : label.value("evidence", nlohmann::json::array()))
    out << fmt::format("  - {} = {} (threshold {} {}; {})\n", e.value("metric", "?"), number(e.value("value", nlohmann::json())),
                       e.value("comparison", "?"), number(e.value("threshold", nlohmann::json())),
                       e.value("passed", false) ? "met" : "not met");
}

void render_object(std::ostringstream& out, const std::string& title, const nlohmann::json& obj) {
  out << "- " << title << ":";
  if (!obj.is_object()) {
    out << " " << number(obj) << "\n";
    return;
  }
  bool first = true;
  for (const auto& [k, v] : obj.items()) {
    out << (first ? " " : ", ") << k << " " << (v.is_object() || v.is_array() ? v.dump() : number(v));
    first = false;
  }
  out << "\n";
}

}  // namespace

std::string render_template(const std::string& text, const std::map<std::string, std::string>& values,
                            const std::string& template_name) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t open = text.find("{{", i);
    if (open == std::string::npos) break;
    size_t j = open + 2;
    while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
    if (j == open + 2 || text.compare(j, 2, "}}") != 0) {  // not a placeholder: keep as written
      out.append(text, i, open + 2 - i);
      i = open + 2;
      continue;
    }
    std::string name = text.substr(open + 2, j - open - 2);
    auto it = values.find(name);
    if (it == values.end())
      throw Error(ExitCode::Usage, fmt::format("prompt template {}: unknown placeholder {{{{{}}}}} (see "
                                               "share/prompts/README.md)", template_name, name));
    out.append(text, i, open - i);
    out += it->second;
    i = j + 2;
  }
  out.append(text, i, std::string::npos);
  return out;
}

PromptTemplates load_prompt_templates(const std::string& dir) {
  if (!dir.empty() && !std::filesystem::is_directory(dir))
    throw Error(ExitCode::Usage, fmt::format("--llm-prompt-dir {} is not a directory", dir));
  PromptTemplates t;
  t.system = load_one(dir, "system", kBuiltinSystemPrompt, t.origin["system"]);
  t.propose = load_one(dir, "propose", kBuiltinProposePrompt, t.origin["propose"]);
  t.repair = load_one(dir, "repair", kBuiltinRepairPrompt, t.origin["repair"]);
  return t;
}

namespace {

// Whether a (possibly demangled, "name(float const*, int)" or "void name<4>(...)") profile name is the kernel.
bool names_kernel(const std::string& profiled, const std::string& kernel) {
  for (size_t pos = profiled.find(kernel); pos != std::string::npos; pos = profiled.find(kernel, pos + 1)) {
    bool left = pos == 0 || profiled[pos - 1] == ' ' || profiled[pos - 1] == ':';
    size_t end = pos + kernel.size();
    bool right = end == profiled.size() || profiled[end] == '(' || profiled[end] == '<';
    if (left && right) return true;
  }
  return false;
}

}  // namespace

std::string render_measured_facts(const nlohmann::json& analysis, const std::string& kernel_name) {
  // A per-application document ({"kernels": [...]}, or analysis.json's {"ranking": {"kernels": [...]}}): the
  // kernel's own entry is what the model needs; the others are summarised in one line.
  const nlohmann::json* list = nullptr;
  if (analysis.is_object() && analysis.contains("kernels") && analysis["kernels"].is_array()) list = &analysis["kernels"];
  if (analysis.is_object() && analysis.contains("ranking") && analysis["ranking"].is_object() &&
      analysis["ranking"].value("kernels", nlohmann::json()).is_array())
    list = &analysis["ranking"]["kernels"];
  if (list) {
    for (const auto& k : *list)
      if (k.is_object() && names_kernel(k.value("name", ""), kernel_name)) {
        nlohmann::json own = k;
        own.erase("name");
        for (const auto& [key, v] : analysis.items())
          if (key != "kernels" && key != "ranking") own[key] = v;
        std::string text = render_measured_facts(own, kernel_name);
        return text + fmt::format("- the application runs {} kernel(s) in all\n", list->size());
      }
    return fmt::format("The profile has {} kernel(s) but none named {}: no measurements for this kernel.",
                       list->size(), kernel_name);
  }
  const nlohmann::json& a = analysis;
  if (!a.is_object() || a.empty()) return "No measurements are available for this kernel (no profile was given).";
  std::ostringstream out;
  std::set<std::string> used;
  auto has = [&](const char* k) {
    if (!a.contains(k) || a[k].is_null()) return false;
    used.insert(k);
    return true;
  };
  if (has("total_ns") || has("count") || has("launches") || has("median_ns") || has("critical_path_fraction") ||
      has("share_of_gpu_time"))
    out << fmt::format("- time: {} launches, {} ns in all (median {} ns per launch), {} of GPU time, {} of the critical path\n",
                       number(a.value("count", a.value("launches", nlohmann::json()))),
                       number(a.value("total_ns", nlohmann::json())), number(a.value("median_ns", nlohmann::json())),
                       percent(a.value("share_of_gpu_time", nlohmann::json())),
                       percent(a.value("critical_path_fraction", nlohmann::json())));
  if (has("bottleneck")) {
    const auto& b = a["bottleneck"];
    if (b.value("primary", nlohmann::json()).is_null()) out << "- bottleneck: no rule fired\n";
    render_label(out, "primary", b.value("primary", nlohmann::json()));
    render_label(out, "secondary", b.value("secondary", nlohmann::json()));
    for (const auto& n : b.value("notes", nlohmann::json::array())) out << "  - note: " << number(n) << "\n";
  }
  if (has("roofline")) {
    const auto& r = a["roofline"];
    out << fmt::format("- roofline: {}-bound, {} GFLOP/s, {} GB/s from device memory, arithmetic intensity {} "
                       "FLOP/byte, {} of the roof at that intensity\n",
                       r.value("bound", "unknown"), number(r.value("gflops", nlohmann::json())),
                       number(r.value("hbm_gbps", nlohmann::json())),
                       number(r.value("arithmetic_intensity", nlohmann::json())),
                       percent(r.value("fraction_of_roof", nlohmann::json())));
  }
  if (has("occupancy") || has("occupancy_limiter"))
    out << fmt::format("- theoretical occupancy: {}, limited by {}\n", percent(a.value("occupancy", nlohmann::json())),
                       number(a.value("occupancy_limiter", nlohmann::json())));
  if (has("deep_analysis")) {
    const auto& d = a["deep_analysis"];
    out << "- deep analysis (" << d.value("source", "?") << "):";
    for (const char* k : {"achieved_occupancy", "issue_utilization", "stall_fraction", "memory_stall_share",
                          "branch_efficiency", "thread_utilization", "l1_hit_rate", "l2_hit_rate"})
      if (d.contains(k) && d[k].is_number()) out << " " << k << " " << percent(d[k]) << ";";
    out << "\n";
    auto stalls = d.value("stall_breakdown", nlohmann::json::array());
    if (!stalls.empty()) {
      out << "  - stall breakdown:";
      for (const auto& s : stalls) out << " " << s.value("name", "?") << " " << percent(s.value("fraction", nlohmann::json())) << ";";
      out << "\n";
    }
  }
  if (has("resources")) render_object(out, "resources", a["resources"]);
  if (has("launch")) render_object(out, "launch configuration", a["launch"]);
  for (const auto& [k, v] : a.items())
    if (!used.count(k) && !v.is_null()) render_object(out, "other measured fact " + k, v);
  return out.str();
}

std::string render_constraints(const std::vector<std::string>& constraints) {
  if (constraints.empty()) return "- Keep the kernel's signature and results exactly as they are.\n";
  std::string out;
  for (const auto& c : constraints) out += "- " + c + "\n";
  return out;
}

std::string render_history(const std::vector<HistoryEntry>& history) {
  if (history.empty()) return "None yet: this is the first round.";
  std::ostringstream out;
  for (const auto& h : history) {
    out << fmt::format("- {} (round {}){}: ", h.candidate_id, h.round, h.description.empty() ? "" : " " + h.description);
    if (!h.failure.empty()) {
      out << "no usable code: " << h.failure << "\n";
      continue;
    }
    if (h.verdicts.empty()) {
      out << "not judged yet\n";
      continue;
    }
    const GateVerdict& last = h.verdicts.back();
    out << (last.passed && last.gate == "accepted" ? "ACCEPTED" : last.passed ? "passed " + last.gate : "REJECTED by the " + last.gate + " gate")
        << ": " << last.reason << "\n";
    for (const auto& v : h.verdicts) {
      if (v.evidence.is_null() || v.evidence.empty()) continue;
      std::string ev = v.evidence.is_string() ? v.evidence.get<std::string>() : v.evidence.dump();
      if (ev.size() > 1500) ev = ev.substr(0, 1500) + " ...(truncated)";
      out << "  - " << v.gate << " evidence: " << ev << "\n";
    }
  }
  return out.str();
}

}  // namespace rpl::optimize::llm
