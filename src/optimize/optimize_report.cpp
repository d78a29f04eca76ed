// optimize.json's companions: the terminal summary and the candidates' diffs.
#include <fmt/core.h>

#include <algorithm>
#include <sstream>

#include "optimize/optimize_loop.hpp"

namespace rpl::optimize {
namespace {

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string line; std::getline(ss, line);) out.push_back(line);
  return out;
}

}  // namespace

std::string unified_diff(const std::string& a, const std::string& b, const std::string& name) {
  if (a == b) return "";
  std::vector<std::string> x = split_lines(a), y = split_lines(b);
  // common prefix and suffix, then a longest-common-subsequence table over the middle
  std::size_t pre = 0;
  while (pre < x.size() && pre < y.size() && x[pre] == y[pre]) ++pre;
  std::size_t suf = 0;
  while (suf < x.size() - pre && suf < y.size() - pre && x[x.size() - 1 - suf] == y[y.size() - 1 - suf]) ++suf;
  std::size_t n = x.size() - pre - suf, m = y.size() - pre - suf;
  std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = x[pre + i] == y[pre + j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<std::string> body;
  std::size_t ctx_begin = pre >= 3 ? pre - 3 : 0;
  for (std::size_t k = ctx_begin; k < pre; ++k) body.push_back(" " + x[k]);
  std::size_t i = 0, j = 0, removed = 0, added = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[pre + i] == y[pre + j]) body.push_back(" " + x[pre + i]), ++i, ++j;
    else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) body.push_back("+" + y[pre + j++]), ++added;
    else body.push_back("-" + x[pre + i++]), ++removed;
  }
  std::size_t tail = std::min<std::size_t>(3, suf);
  for (std::size_t k = 0; k < tail; ++k) body.push_back(" " + x[x.size() - suf + k]);
  std::size_t old_len = (pre - ctx_begin) + n + tail, new_len = (pre - ctx_begin) + m + tail;
  std::string out = fmt::format("--- a/{}\n+++ b/{}\n@@ -{},{} +{},{} @@\n", name, name, ctx_begin + 1, old_len, ctx_begin + 1, new_len);
  for (const auto& l : body) out += l + "\n";
  (void)removed, (void)added;
  return out;
}

std::string optimize_summary_text(const nlohmann::json& d) {
  std::string out;
  out += fmt::format("rocm-perf optimize: {} kernel {}\n", d.value("source", ""), d.contains("kernel") ? d["kernel"].value("name", "?") : "?");
  if (d.contains("baseline") && d["baseline"].contains("runtime_median_ns"))
    out += fmt::format("  baseline runtime (sum of kernel time, median): {:.3f} ms\n", d["baseline"]["runtime_median_ns"].get<double>() / 1e6);
  if (d.contains("inputs")) {
    out += "  inputs checked:";
    for (const auto& i : d["inputs"]) out += " " + i.value("name", "");
    out += "\n";
  }
  out += fmt::format("  {:<26} {:<12} {:<12} {:>8}  {}\n", "candidate", "last gate", "decision", "speedup", "reason");
  for (const auto& c : d.value("candidates", nlohmann::json::array())) {
    const auto& g = c["gates"].empty() ? nlohmann::json::object() : c["gates"].back();
    std::string sp = c.contains("speedup") ? fmt::format("{:.3f}", c["speedup"].get<double>()) : "-";
    std::string reason = g.value("reason", "");
    if (reason.size() > 90) reason = reason.substr(0, 87) + "...";
    out += fmt::format("  {:<26} {:<12} {:<12} {:>8}  {}\n", c.value("id", ""), g.value("gate", ""), c.value("decision", ""), sp, reason);
  }
  if (d.contains("decision"))
    out += fmt::format("  decision: {} - {}\n", d["decision"].value("status", ""), d["decision"].value("reason", ""));
  if (d.contains("decision") && d["decision"].contains("how_to_apply"))
    out += fmt::format("  {}\n", d["decision"]["how_to_apply"].get<std::string>());
  for (const auto& n : d.value("notes", nlohmann::json::array())) out += "  note: " + n.get<std::string>() + "\n";
  return out;
}

}  // namespace rpl::optimize
