#pragma once
// Theoretical occupancy of a kernel as the trace shows it launched. A kernel may run with several
// launch configurations (block sizes, dynamic LDS, agents, code objects with different register
// counts); the one reported is the configuration with the most total dispatch time.
//
// Inputs per configuration: the symbol's registers (arch VGPRs / NVIDIA registers, AGPRs, SGPRs), the
// dispatch's block size, the dispatch's LDS / shared memory bytes (static + dynamic; the symbol's
// static size where the dispatch records less), and the agent's architecture name and wave size (the
// architecture's default wave size where the agent records none).
//
// Known limits of the inputs: the wave size is the agent's, not the kernel's (an RDNA kernel built
// for wave64 on a wave32 agent is computed as wave32); rocprofv3 1.0.0 records gfx950 VGPR counts
// with the wrong granule (reference section 6.1), so gfx950 results are only as good as the importer's
// correction; a symbol with 0 registers recorded is taken as "resources unknown".
#include <optional>
#include <string>
#include <vector>

#include "analysis/kernel_stats.hpp"
#include "analysis/occupancy.hpp"
#include "model/trace.hpp"

namespace rpl::analysis {

struct LaunchOccupancy {
  Occupancy occupancy;
  std::string arch;           // canonical architecture name ("gfx942", "sm_90")
  KernelResources resources;  // the inputs compute_occupancy was given
  double time_ns = 0;         // total duration of the dispatches with this configuration
  std::size_t dispatches = 0;
};

struct KernelOccupancy {
  // nullopt when the architecture is unknown, the agent or the register counts are not recorded,
  // or the recorded launch cannot run on the architecture (see `unavailable`).
  std::optional<LaunchOccupancy> top;
  std::size_t launch_configurations = 0;  // distinct (registers, agent arch + wave size, block, LDS)
  std::string unavailable;                // why `top` is nullopt; empty otherwise
};

// One kernel: a pass over all dispatches, O(N).
KernelOccupancy kernel_occupancy(const Trace& trace, const KernelStats& kernel);

// Every kernel of `stats` in one pass over the dispatches; result[i] belongs to stats.kernels[i].
std::vector<KernelOccupancy> kernel_occupancies(const Trace& trace, const KernelStatsResult& stats);

}  // namespace rpl::analysis
