#pragma once
// PC samples: where in a kernel's machine code the GPU's warps (waves) were found when sampled, and why they
// were stalled. One record per (kernel, instruction, stall reason) with its sample count. Filled by the
// NVIDIA PC-sampling pass (CUPTI PC sampling, collectors/nvidia/pc_sampling_csv.hpp) and by rocprofv3's
// PC sampling on AMD (collectors/amd/rocprof_pc_sampling.hpp).
#include <cstdint>
#include <string>
#include <vector>

namespace rpl {

struct PcSampleRecord {
  std::string kernel;        // the function's (mangled on NVIDIA) name
  uint64_t module = 0;       // NVIDIA: the cubin's CRC (cuptiGetCubinCrc); AMD: 0
  uint64_t pc_offset = 0;    // offset of the instruction from the function's start (AMD: 0 when unknown)
  std::string instruction;   // SASS / ISA text where known ("LDG.E R2, desc[UR4][R2.64]")
  std::string stall_reason;  // the collector's name ("long_scoreboard", "WAITCNT"); "" when not recorded
  uint64_t samples = 0;
  std::string file;          // source file where line information exists, else ""
  uint32_t line = 0;         // 0: unknown
};

}  // namespace rpl
