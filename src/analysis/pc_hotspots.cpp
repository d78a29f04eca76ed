#include "analysis/pc_hotspots.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace rpl::analysis {
namespace {

using StallMap = std::map<std::string, uint64_t>;

std::vector<StallCount> sorted_stalls(const StallMap& m) {
  std::vector<StallCount> out;
  for (const auto& [reason, n] : m) out.push_back({reason, n});
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.samples > b.samples; });
  return out;
}

struct InstructionAcc {
  std::string instruction, file;
  uint32_t line = 0;
  uint64_t samples = 0;
  StallMap stalls;
};
struct LineAcc {
  uint64_t samples = 0;
  StallMap stalls;
};
struct KernelPcAcc {
  uint64_t samples = 0;
  StallMap stalls;
  // (module, pc, instruction text): AMD records without a pc are told apart by their text.
  std::map<std::tuple<uint64_t, uint64_t, std::string>, InstructionAcc> instructions;
  std::map<std::pair<std::string, uint32_t>, LineAcc> lines;
};

}  // namespace

std::vector<KernelHotspots> pc_hotspots(const std::vector<PcSampleRecord>& records, std::size_t top) {
  std::map<std::string, KernelPcAcc> kernels;
  for (const PcSampleRecord& r : records) {
    if (r.samples == 0) continue;
    KernelPcAcc& k = kernels[r.kernel];
    k.samples += r.samples;
    if (!r.stall_reason.empty()) k.stalls[r.stall_reason] += r.samples;
    InstructionAcc& i = k.instructions[{r.module, r.pc_offset, r.pc_offset ? std::string() : r.instruction}];
    if (i.instruction.empty()) i.instruction = r.instruction;
    if (i.file.empty() && r.line) i.file = r.file, i.line = r.line;
    i.samples += r.samples;
    if (!r.stall_reason.empty()) i.stalls[r.stall_reason] += r.samples;
    if (r.line) {
      LineAcc& l = k.lines[{r.file, r.line}];
      l.samples += r.samples;
      if (!r.stall_reason.empty()) l.stalls[r.stall_reason] += r.samples;
    }
  }
  std::vector<KernelHotspots> out;
  for (const auto& [name, k] : kernels) {
    KernelHotspots& h = out.emplace_back();
    h.kernel = name;
    h.samples = k.samples;
    h.stalls = sorted_stalls(k.stalls);
    h.instructions_sampled = k.instructions.size();
    for (const auto& [key, i] : k.instructions)
      h.instructions.push_back({std::get<1>(key), i.instruction, i.file, i.line, i.samples,
                                double(i.samples) / double(k.samples), sorted_stalls(i.stalls)});
    std::stable_sort(h.instructions.begin(), h.instructions.end(),
                     [](const auto& a, const auto& b) { return a.samples > b.samples; });
    if (h.instructions.size() > top) h.instructions.resize(top);
    for (const auto& [key, l] : k.lines)
      h.lines.push_back({key.first, key.second, l.samples, double(l.samples) / double(k.samples), sorted_stalls(l.stalls)});
    std::stable_sort(h.lines.begin(), h.lines.end(), [](const auto& a, const auto& b) { return a.samples > b.samples; });
    if (h.lines.size() > top) h.lines.resize(top);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.samples > b.samples; });
  return out;
}

}  // namespace rpl::analysis
