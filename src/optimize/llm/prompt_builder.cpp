#include "optimize/llm/prompt_builder.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

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

std::string percent(const nlohmann::json& v) {
  return v.is_number() ? fmt::format("{:.1f}%", 100.0 * v.get<double>()) : std::string("unknown");
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

namespace {

using nlohmann::json;

bool present(const json& a, const char* key) { return a.is_object() && a.contains(key) && !a[key].is_null(); }

std::string num(const json& v, int digits = 3) {
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number()) return fmt::format("{:.{}g}", v.get<double>(), digits);
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string share(double part, double whole) { return fmt::format("{:.1f}%", 100.0 * part / whole); }

std::string duration(double ns) {
  if (ns >= 1e6) return fmt::format("{:.3g} ms", ns / 1e6);
  if (ns >= 1e3) return fmt::format("{:.3g} us", ns / 1e3);
  return fmt::format("{:.3g} ns", ns);
}

// The GPU: name, architecture, SM/CU count and peaks.
void render_gpu(const json& a, std::ostringstream& out) {
  if (present(a, "gpu")) {
    const json& g = a["gpu"];
    std::vector<std::string> parts;
    if (present(g, "sm_count")) parts.push_back(fmt::format("{} {}", num(g["sm_count"]), g.value("vendor", "") == "amd" ? "CUs" : "SMs"));
    if (present(g, "peak_bandwidth_gbps")) parts.push_back(fmt::format("peak device-memory bandwidth {} GB/s", num(g["peak_bandwidth_gbps"])));
    if (present(g, "peak_gflops"))
      for (const auto& [cls, v] : g["peak_gflops"].items()) parts.push_back(fmt::format("peak {} {} GFLOP/s", cls, num(v)));
    out << fmt::format("- GPU: {}{}{}\n", g.value("name", "the captured GPU"), present(g, "arch") ? " (" + g["arch"].get<std::string>() + ")" : "",
                       parts.empty() ? "" : ", " + fmt::format("{}", fmt::join(parts, ", ")));
  }
}

// Launch count and time, shares of GPU time and of the critical path.
void render_time(const json& a, std::ostringstream& out) {
  {
    std::vector<std::string> parts;
    json launches = present(a, "count") ? a["count"] : present(a, "launches") ? a["launches"] : json();
    if (!launches.is_null()) parts.push_back(num(launches) + " launches");
    if (present(a, "total_ns")) parts.push_back(duration(a["total_ns"].get<double>()) + " in all");
    if (present(a, "median_ns")) parts.push_back("median " + duration(a["median_ns"].get<double>()) + " per launch");
    if (present(a, "share_of_gpu_time")) parts.push_back(percent(a["share_of_gpu_time"]) + " of GPU time");
    if (present(a, "critical_path_fraction")) parts.push_back(percent(a["critical_path_fraction"]) + " of the critical path");
    if (!parts.empty()) out << fmt::format("- time: {}\n", fmt::join(parts, ", "));
  }
}

// Launch geometry: the first captured shape, or a {grid, block} launch.
void render_geometry(const json& a, std::ostringstream& out) {
  if (present(a, "shapes") && a["shapes"].is_array() && !a["shapes"].empty()) {
    const json& sh = a["shapes"][0];
    auto dims = [](const json& v) { return v.is_array() && v.size() == 3 ? fmt::format("{}x{}x{}", num(v[0]), num(v[1]), num(v[2])) : std::string("?"); };
    out << fmt::format("- launch geometry: grid of {} blocks, {} threads per block, {} bytes of shared memory per launch{}\n",
                       dims(sh.value("blocks", json())), dims(sh.value("block", json())), num(sh.value("lds_bytes", json(0))),
                       a["shapes"].size() > 1 ? fmt::format(" ({} other launch shapes)", a["shapes"].size() - 1) : "");
  }
  if (!present(a, "shapes") && present(a, "launch") && a["launch"].is_object()) {  // a launch given as {grid, block}
    auto dims = [](const json& v) {
      return v.is_array() && v.size() == 3 ? fmt::format("{}x{}x{}", num(v[0]), num(v[1]), num(v[2])) : num(v);
    };
    std::vector<std::string> parts;
    if (present(a["launch"], "grid")) parts.push_back("grid " + dims(a["launch"]["grid"]));
    if (present(a["launch"], "block")) parts.push_back("block " + dims(a["launch"]["block"]));
    if (!parts.empty()) out << fmt::format("- launch geometry: {}\n", fmt::join(parts, ", "));
  }
}

// Registers, static shared memory and theoretical occupancy.
void render_resources(const json& a, std::ostringstream& out) {
  {
    json res = present(a, "resources") && a["resources"].is_object() ? a["resources"] : json::object();
    json regs = present(a, "registers") ? a["registers"] : res.value("registers", json());
    json shared = present(a, "static_shared_bytes") ? a["static_shared_bytes"] : res.value("shared_bytes", json());
    std::vector<std::string> parts;
    if (!regs.is_null()) parts.push_back(num(regs) + " registers per thread");
    if (!shared.is_null()) parts.push_back(num(shared) + " bytes of static shared memory per block");
    if (!parts.empty()) out << fmt::format("- resources: {}\n", fmt::join(parts, ", "));
  }
  if (present(a, "occupancy"))
    out << fmt::format("- theoretical occupancy: {}{}\n", percent(a["occupancy"]),
                       present(a, "occupancy_limiter") ? ", limited by " + num(a["occupancy_limiter"]) : "");
}

// What the kernel achieved and where the roofline places it.
void render_roofline(const json& a, std::ostringstream& out) {
  if (present(a, "roofline") && a["roofline"].is_object()) {
    const json& r = a["roofline"];
    std::vector<std::string> parts;
    const json* g = present(a, "gpu") ? &a["gpu"] : nullptr;
    if (present(r, "gflops")) {
      std::string p = num(r["gflops"]) + " GFLOP/s";
      if (g && present(*g, "peak_fp32_gflops") && (*g)["peak_fp32_gflops"].get<double>() > 0)
        p += " (" + share(r["gflops"].get<double>(), (*g)["peak_fp32_gflops"].get<double>()) + " of the FP32 peak)";
      parts.push_back(p);
    }
    if (present(r, "hbm_gbps")) {
      std::string p = num(r["hbm_gbps"]) + " GB/s from device memory";
      if (g && present(*g, "peak_bandwidth_gbps") && (*g)["peak_bandwidth_gbps"].get<double>() > 0)
        p += " (" + share(r["hbm_gbps"].get<double>(), (*g)["peak_bandwidth_gbps"].get<double>()) + " of peak bandwidth)";
      parts.push_back(p);
    }
    if (present(r, "arithmetic_intensity")) parts.push_back("arithmetic intensity " + num(r["arithmetic_intensity"]) + " FLOP/byte");
    if (present(r, "fraction_of_roof")) parts.push_back(percent(r["fraction_of_roof"]) + " of the roof at that intensity");
    std::string bound = r.value("bound", "");
    if (!parts.empty() || bound == "memory" || bound == "compute")
      out << fmt::format("- achieved: {}{}\n", fmt::join(parts, ", "),
                         bound == "memory" || bound == "compute" ? fmt::format("{}the roofline places it {}-bound", parts.empty() ? "" : "; ", bound) : "");
  }
}

// The classifier's primary and secondary bottleneck with the evidence of each rule.
void render_bottleneck(const json& a, std::ostringstream& out) {
  if (present(a, "bottleneck") && a["bottleneck"].is_object()) {
    const auto& b = a["bottleneck"];
    if (!present(b, "primary")) out << "- bottleneck: no rule fired\n";
    for (const char* which : {"primary", "secondary"}) {
      if (!present(b, which) || !b[which].is_object()) continue;
      const json& label = b[which];
      out << fmt::format("- {} bottleneck: {}{}\n", which, label.value("label", "a rule fired"),
                         present(label, "rule") ? " (rule " + label["rule"].get<std::string>() + ")" : "");
      for (const auto& e : label.value("evidence", json::array()))
        if (present(e, "metric") && present(e, "value"))
          out << fmt::format("  - {} = {}{}\n", e["metric"].get<std::string>(), num(e["value"]),
                             present(e, "threshold") ? fmt::format(" (threshold {} {}; {})", e.value("comparison", ""), num(e["threshold"]),
                                                                   e.value("passed", false) ? "met" : "not met")
                                                     : "");
    }
    for (const auto& n : b.value("notes", json::array())) out << "  - note: " << num(n) << "\n";
  }
}

// Counter-derived rates and the stall breakdown.
void render_counters(const json& a, std::ostringstream& out) {
  if (present(a, "deep_analysis") && a["deep_analysis"].is_object()) {
    const auto& d = a["deep_analysis"];
    static const std::vector<std::pair<const char*, const char*>> named = {
        {"achieved_occupancy", "achieved occupancy"}, {"issue_utilization", "issue utilisation"},
        {"stall_fraction", "cycles stalled"}, {"memory_stall_share", "stalls on memory"},
        {"branch_efficiency", "branch efficiency"}, {"thread_utilization", "active threads per warp"},
        {"l1_hit_rate", "L1 hit rate"}, {"l2_hit_rate", "L2 hit rate"}};
    std::vector<std::string> parts;
    for (const auto& [k, words] : named)
      if (d.contains(k) && d[k].is_number()) parts.push_back(fmt::format("{} {}", words, percent(d[k])));
    if (!parts.empty()) out << fmt::format("- counters: {}\n", fmt::join(parts, ", "));
    auto stalls = d.value("stall_breakdown", json::array());
    if (!stalls.empty()) {
      std::vector<std::string> st;
      for (const auto& x : stalls)
        if (present(x, "name") && present(x, "fraction")) st.push_back(fmt::format("{} {}", x["name"].get<std::string>(), percent(x["fraction"])));
      if (!st.empty()) out << fmt::format("- stall reasons: {}\n", fmt::join(st, ", "));
    }
  }
}

// Work per launch, speed of light, variation, and why counters are missing.
void render_work_and_stability(const json& a, std::ostringstream& out) {
  if (present(a, "flops_per_launch"))
    out << fmt::format("- work: {} floating-point operations per launch{}\n", num(a["flops_per_launch"]),
                       present(a, "peak_gflops") ? fmt::format(" (peak of their class {} GFLOP/s)", num(a["peak_gflops"])) : "");
  if (present(a, "speed_of_light_compute_ns"))
    out << fmt::format("- speed of light: no launch can take less than {} for those operations at peak\n",
                       duration(a["speed_of_light_compute_ns"].get<double>()));
  if (present(a, "cv") && present(a, "stability"))
    out << fmt::format("- run-to-run variation of its time: coefficient of variation {} ({})\n", num(a["cv"]), num(a["stability"]));
  if (present(a, "counter_failure"))
    out << fmt::format("- no hardware counters were taken: {}\n", num(a["counter_failure"]));
}

// The facts of one kernel, each line only with what was measured: no "unknown", no raw key names. Keys are those
// of analysis.json's ranking entries plus what the optimizer adds (gpu, flops_per_launch, peak_gflops,
// speed_of_light_compute_ns, registers, static_shared_bytes, counter_failure).
std::string render_kernel_facts(const json& a) {
  std::ostringstream out;
  for (auto* section : {render_gpu, render_time, render_geometry, render_resources, render_roofline, render_bottleneck,
                        render_counters, render_work_and_stability})
    section(a, out);
  std::string text = out.str();
  return text.empty() ? "No measurements are available for this kernel." : text;
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
  return render_kernel_facts(a);
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
