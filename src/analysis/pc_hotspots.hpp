#pragma once
// PC-sampling hotspots: per kernel, the instructions and source lines with the most samples, each with its
// stall-reason breakdown. Pure function over PcSampleRecords.
#include <cstdint>
#include <string>
#include <vector>

#include "model/pc_samples.hpp"

namespace rpl::analysis {

struct StallCount {
  std::string reason;
  uint64_t samples = 0;
};

struct HotInstruction {
  uint64_t pc_offset = 0;
  std::string instruction;
  std::string file;
  uint32_t line = 0;
  uint64_t samples = 0;
  double fraction = 0;              // of the kernel's samples
  std::vector<StallCount> stalls;   // by samples, descending
};

struct HotLine {
  std::string file;
  uint32_t line = 0;
  uint64_t samples = 0;
  double fraction = 0;
  std::vector<StallCount> stalls;
};

struct KernelHotspots {
  std::string kernel;
  uint64_t samples = 0;
  std::vector<StallCount> stalls;              // the kernel's breakdown
  std::vector<HotInstruction> instructions;    // the `top` hottest
  std::vector<HotLine> lines;                  // the `top` hottest with line information
  std::size_t instructions_sampled = 0;        // distinct instructions with samples
};

// Kernels by samples, descending (ties by name); instructions and lines likewise (ties by pc / file:line).
std::vector<KernelHotspots> pc_hotspots(const std::vector<PcSampleRecord>& records, std::size_t top);

}  // namespace rpl::analysis
