#pragma once
// What scratch (private segment) memory cost a run: the runtime's scratch operations per process and GPU
// (rocprofv3 --scratch-memory-trace, model/scratch_memory.hpp) and the kernels that need scratch per work-item
// (the dispatches' private segment size; on NVIDIA their local memory per thread).
#include <cstdint>
#include <string>
#include <vector>

#include "model/scratch_memory.hpp"
#include "model/trace.hpp"

namespace rpl::analysis {

struct ScratchAgentSummary {
  int64_t pid = 0;
  std::string agent;
  int64_t agent_index = -1;
  std::size_t allocations = 0, reallocations = 0, frees = 0, reclaims = 0;
  uint64_t bytes_allocated = 0;     // summed over ALLOC and REALLOC
  uint64_t largest_allocation = 0;  // bytes
  TimeNs allocation_ns = 0;         // time in ALLOC and REALLOC operations: a dispatch needing one waits for it
  TimeNs longest_allocation_ns = 0;
};

struct ScratchKernel {
  std::string name;
  std::size_t dispatches = 0;           // dispatches that needed scratch
  uint32_t max_bytes_per_work_item = 0;
};

struct ScratchSummary {
  std::size_t operations = 0;
  TimeNs allocation_ns = 0;                 // over every agent
  std::vector<ScratchAgentSummary> agents;  // by pid, then agent index
  std::vector<ScratchKernel> kernels;       // the most scratch per work-item first (ties: more dispatches, name)
};

ScratchSummary summarize_scratch(const std::vector<ScratchOperation>& operations, const Trace& trace);

}  // namespace rpl::analysis
