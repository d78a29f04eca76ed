#include "report/pc_sampling_report.hpp"

#include <fmt/format.h>

#include "report/html_util.hpp"
#include "support/demangle.hpp"

namespace rpl::report {
namespace {

nlohmann::json stalls_json(const std::vector<analysis::StallCount>& stalls) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : stalls) out.push_back({{"reason", s.reason}, {"samples", s.samples}});
  return out;
}

std::string location(const std::string& file, uint32_t line) {
  if (!line) return "";
  auto slash = file.rfind('/');
  return fmt::format("{}:{}", slash == std::string::npos ? file : file.substr(slash + 1), line);
}

// "long_scoreboard 71%, wait 12%" (the first three).
std::string stall_summary(const std::vector<analysis::StallCount>& stalls, uint64_t total) {
  std::string out;
  for (std::size_t i = 0; i < stalls.size() && i < 3; ++i)
    out += fmt::format("{}{} {:.0f}%", i ? ", " : "", stalls[i].reason, 100.0 * double(stalls[i].samples) / double(total));
  return out;
}

}  // namespace

nlohmann::json pc_sampling_json(const app::PcSamplingResult& r) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : r.kernels) {
    nlohmann::json instructions = nlohmann::json::array(), lines = nlohmann::json::array();
    for (const auto& i : k.instructions) {
      nlohmann::json j = {{"pc_offset", i.pc_offset}, {"instruction", i.instruction}, {"samples", i.samples},
                          {"fraction", i.fraction},   {"stalls", stalls_json(i.stalls)}};
      if (i.line) j["file"] = i.file, j["line"] = i.line;
      instructions.push_back(std::move(j));
    }
    for (const auto& l : k.lines)
      lines.push_back({{"file", l.file}, {"line", l.line}, {"samples", l.samples}, {"fraction", l.fraction},
                       {"stalls", stalls_json(l.stalls)}});
    kernels.push_back({{"kernel", k.kernel},
                       {"display_name", demangle(k.kernel)},
                       {"samples", k.samples},
                       {"instructions_sampled", k.instructions_sampled},
                       {"stalls", stalls_json(k.stalls)},
                       {"top_instructions", instructions},
                       {"top_lines", lines}});
  }
  return {{"method", r.method},
          {"validated_on_hardware", r.validated_on_hardware},
          {"disassembler", r.disassembler},
          {"total_samples", r.total_samples},
          {"run_dir", r.run_dir},
          {"kernels", kernels}};
}

std::string pc_sampling_terminal(const std::vector<analysis::KernelHotspots>& kernels, std::size_t max_kernels,
                                 std::size_t rows) {
  std::string out = "\nPC sampling: where the kernels' time goes\n";
  for (std::size_t n = 0; n < kernels.size() && n < max_kernels; ++n) {
    const auto& k = kernels[n];
    out += fmt::format("  {:.70}  {} samples ({})\n", demangle(k.kernel), k.samples, stall_summary(k.stalls, k.samples));
    for (std::size_t i = 0; i < k.instructions.size() && i < rows; ++i) {
      const auto& h = k.instructions[i];
      out += fmt::format("    {:5.1f}%  +0x{:04x}  {:<40.40} {:<22.22} {}\n", 100 * h.fraction, h.pc_offset,
                         h.instruction.empty() ? "?" : h.instruction, location(h.file, h.line),
                         stall_summary(h.stalls, h.samples));
    }
    for (std::size_t i = 0; i < k.lines.size() && i < rows; ++i) {
      const auto& l = k.lines[i];
      out += fmt::format("    {:5.1f}%  line {:<30.30} {}\n", 100 * l.fraction, location(l.file, l.line),
                         stall_summary(l.stalls, l.samples));
    }
  }
  return out;
}

std::string pc_sampling_html(const std::vector<analysis::KernelHotspots>& kernels, std::size_t max_kernels) {
  using html::escape;
  using html::put;
  if (kernels.empty()) return "";
  std::string out = "<h2>PC sampling hotspots</h2>\n";
  for (std::size_t n = 0; n < kernels.size() && n < max_kernels; ++n) {
    const auto& k = kernels[n];
    put(out, "<h3 title=\"{}\">{}</h3><p class=\"sub\">{} samples; {}</p>\n", escape(k.kernel),
        escape(html::shorten(demangle(k.kernel), 120)), k.samples, escape(stall_summary(k.stalls, k.samples)));
    out += "<table class=\"pc-hotspots\"><thead><tr><th>share</th><th>offset</th><th class=\"name\">instruction</th>"
           "<th class=\"name\">source</th><th class=\"name\">stall reasons</th></tr></thead><tbody>\n";
    for (const auto& h : k.instructions)
      put(out, "<tr><td>{}</td><td>+0x{:04x}</td><td class=\"text\"><code>{}</code></td><td class=\"text\">{}</td>"
               "<td class=\"text\">{}</td></tr>\n",
          html::percent(h.fraction), h.pc_offset, escape(h.instruction), escape(location(h.file, h.line)),
          escape(stall_summary(h.stalls, h.samples)));
    out += "</tbody></table>\n";
    if (k.lines.empty()) continue;
    out += "<table class=\"pc-lines\"><thead><tr><th>share</th><th class=\"name\">source line</th>"
           "<th class=\"name\">stall reasons</th></tr></thead><tbody>\n";
    for (const auto& l : k.lines)
      put(out, "<tr><td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td></tr>\n", html::percent(l.fraction),
          escape(location(l.file, l.line)), escape(stall_summary(l.stalls, l.samples)));
    out += "</tbody></table>\n";
  }
  return out;
}

}  // namespace rpl::report
