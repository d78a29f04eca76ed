#pragma once
// Deep analysis of AMD kernels from the hardware counters stored in the trace (rocpd_pmc_event, as
// `rocprofv3 --pmc` or the presets' counter files write them), with rocprof-compute's formulas (its gfx942
// analysis configurations 0200 "System Speed-of-Light" and 1100 "Compute Pipeline"; docs/roofline.md,
// "Deep analysis from AMD counters"). Unvalidated on AMD hardware: checked only on schema-faithful
// databases.
//
//   vL1D hit rate       1 - (TCP_TCC_READ_REQ_sum + TCP_TCC_WRITE_REQ_sum + TCP_TCC_ATOMIC_WITH_RET_REQ_sum
//                            + TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum) / TCP_TOTAL_CACHE_ACCESSES_sum     (CDNA)
//   L2 hit rate         TCC_HIT_sum / (TCC_HIT_sum + TCC_MISS_sum)                                   (CDNA)
//                       GL2C_HIT_sum / (GL2C_HIT_sum + GL2C_MISS_sum)     (RDNA: counter_defs' L2CacheHit)
//   VALU utilisation    SQ_ACTIVE_INST_VALU / (GRBM_GUI_ACTIVE / XCDs x CUs)
//   MFMA utilisation    SQ_VALU_MFMA_BUSY_CYCLES / (GRBM_GUI_ACTIVE / XCDs x CUs x 4)
//   thread utilisation  SQ_THREAD_CYCLES_VALU / SQ_ACTIVE_INST_VALU / wave size   ("VALU Active Threads")
//
// Utilisation is the units' busy cycles against every cycle the GPU was active, not an instruction-mix
// share. Each counter is its mean over the kernel's dispatches that carry it: the counters of one formula
// may come from different passes (the L1 formula's five TCP counters exceed TCP's 4 per pass), and every
// pass measures the same dispatches again. A ratio that still comes out above 1 is clamped, with a note.
#include <string>
#include <string_view>
#include <vector>

#include "analysis/deep_analysis.hpp"
#include "model/trace.hpp"

namespace rpl::analysis {

// The counters the formulas above read, for `arch` (CDNA: all of them; RDNA: the L2 pair only; others:
// none). Counter files that promise the deep metrics carry them (tests check).
std::vector<std::string> amd_deep_counters(std::string_view arch);

// The deep analysis of one kernel from the counters its `dispatches` carry (source "counters"). The agent
// of the first dispatch gives the CU count and the wave size; the XCDs follow from the CU count (gfx942: 38
// CUs per XCD, gfx950: 32, gfx90a: one die per agent). available = false, with the reasons in notes, when no formula's counters
// are there.
DeepAnalysis amd_counter_deep_analysis(const Trace& trace, const std::vector<Index>& dispatches);

// Both AMD sources for one kernel: the counter analysis's values, with the ATT run's filling what the
// counters did not measure (occupancy, stalls, instruction mix, latencies). source "att+counters".
DeepAnalysis merge_deep_analyses(DeepAnalysis counters, const DeepAnalysis& att);

}  // namespace rpl::analysis
