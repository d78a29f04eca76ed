// Roofline counter sets per architecture. Formulas: reference amd-profiling-stack.md §4.2 (FLOPs) and §4.3
// (bytes), which are rocprof-compute's calc_ai; NVIDIA: Nsight Compute metric names verified with
// `ncu --query-metrics --chip gh100` (ncu 2025.3.1) and on an H100 (see the comments below).
#include "analysis/roofline_counters.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "support/errors.hpp"

namespace rpl::analysis {
namespace {

using Q = RooflineQuantity;
constexpr auto kFlops = Q::Kind::Flops;
constexpr auto kBytes = Q::Kind::Bytes;

// ---- AMD CDNA, FLOPs (§4.2). Per dispatch, wave64: VALU FLOPs = 64 x (ADD + MUL + 2*FMA + TRANS) per
// precision; MFMA FLOPs = SQ_INSTS_VALU_MFMA_MOPS_<T> x 512. Same names on gfx90a and gfx94x/gfx950.
constexpr CounterTerm kAmdValuF16[] = {{"SQ_INSTS_VALU_ADD_F16", 64}, {"SQ_INSTS_VALU_MUL_F16", 64},
                                       {"SQ_INSTS_VALU_FMA_F16", 128}, {"SQ_INSTS_VALU_TRANS_F16", 64}};
constexpr CounterTerm kAmdValuF32[] = {{"SQ_INSTS_VALU_ADD_F32", 64}, {"SQ_INSTS_VALU_MUL_F32", 64},
                                       {"SQ_INSTS_VALU_FMA_F32", 128}, {"SQ_INSTS_VALU_TRANS_F32", 64}};
constexpr CounterTerm kAmdValuF64[] = {{"SQ_INSTS_VALU_ADD_F64", 64}, {"SQ_INSTS_VALU_MUL_F64", 64},
                                       {"SQ_INSTS_VALU_FMA_F64", 128}, {"SQ_INSTS_VALU_TRANS_F64", 64}};
constexpr CounterTerm kAmdMfmaF16[] = {{"SQ_INSTS_VALU_MFMA_MOPS_F16", 512}};
constexpr CounterTerm kAmdMfmaBF16[] = {{"SQ_INSTS_VALU_MFMA_MOPS_BF16", 512}};
constexpr CounterTerm kAmdMfmaF32[] = {{"SQ_INSTS_VALU_MFMA_MOPS_F32", 512}};
constexpr CounterTerm kAmdMfmaF64[] = {{"SQ_INSTS_VALU_MFMA_MOPS_F64", 512}};
constexpr CounterTerm kAmdMfmaF8[] = {{"SQ_INSTS_VALU_MFMA_MOPS_F8", 512}};      // gfx94x, gfx950
constexpr CounterTerm kAmdMfmaF6F4[] = {{"SQ_INSTS_VALU_MFMA_MOPS_F6F4", 512}};  // gfx950
constexpr CounterTerm kAmdMfmaI8[] = {{"SQ_INSTS_VALU_MFMA_MOPS_I8", 512}};      // integer ops ("IOPs")

// ---- AMD bytes (§4.3).
// gfx94x/gfx950 HBM ("L2-Fabric"), written exactly as the reference's formula, term by term:
//   hbm_rd = 128*TCC_BUBBLE_sum + 64*(TCC_EA0_RDREQ_sum - TCC_BUBBLE_sum - TCC_EA0_RDREQ_32B_sum)
//            + 32*TCC_EA0_RDREQ_32B_sum
//   hbm_wr = 64*TCC_EA0_WRREQ_64B_sum + 32*(TCC_EA0_WRREQ_sum - TCC_EA0_WRREQ_64B_sum)
constexpr CounterTerm kCdna3HbmRead[] = {{"TCC_BUBBLE_sum", 128},        {"TCC_EA0_RDREQ_sum", 64},
                                         {"TCC_BUBBLE_sum", -64},        {"TCC_EA0_RDREQ_32B_sum", -64},
                                         {"TCC_EA0_RDREQ_32B_sum", 32}};
constexpr CounterTerm kCdna3HbmWrite[] = {{"TCC_EA0_WRREQ_64B_sum", 64}, {"TCC_EA0_WRREQ_sum", 32},
                                          {"TCC_EA0_WRREQ_64B_sum", -32}};
// gfx90a HBM (gpu_series MI200): no 128 B read requests.
//   hbm_rd = 32*TCC_EA_RDREQ_32B_sum + 64*(TCC_EA_RDREQ_sum - TCC_EA_RDREQ_32B_sum)
//   hbm_wr = 64*TCC_EA_WRREQ_64B_sum + 32*(TCC_EA_WRREQ_sum - TCC_EA_WRREQ_64B_sum)
constexpr CounterTerm kCdna2HbmRead[] = {{"TCC_EA_RDREQ_32B_sum", 32}, {"TCC_EA_RDREQ_sum", 64},
                                         {"TCC_EA_RDREQ_32B_sum", -64}};
constexpr CounterTerm kCdna2HbmWrite[] = {{"TCC_EA_WRREQ_64B_sum", 64}, {"TCC_EA_WRREQ_sum", 32},
                                          {"TCC_EA_WRREQ_64B_sum", -32}};
// L2 = 64 x (TCP->TCC read + write + atomic with return + atomic without return requests); L1 = 64 x
// TCP_TOTAL_CACHE_ACCESSES_sum; LDS = 4 B x 32 banks x (SQ_LDS_IDX_ACTIVE - SQ_LDS_BANK_CONFLICT). These
// are rocprof-compute's roofline byte sizes (64 B); its SOL panel uses 128 B for gfx94x vL1D, so the L1
// point of a gfx94x kernel may be up to 2x low (reference §4.3 "inconsistency").
constexpr CounterTerm kAmdL2[] = {{"TCP_TCC_READ_REQ_sum", 64},
                                  {"TCP_TCC_WRITE_REQ_sum", 64},
                                  {"TCP_TCC_ATOMIC_WITH_RET_REQ_sum", 64},
                                  {"TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum", 64}};
constexpr CounterTerm kAmdL1[] = {{"TCP_TOTAL_CACHE_ACCESSES_sum", 64}};
constexpr CounterTerm kAmdLds[] = {{"SQ_LDS_IDX_ACTIVE", 128}, {"SQ_LDS_BANK_CONFLICT", -128}};

#define AMD_COMMON_FLOPS                                                                   \
  Q{kFlops, {Pipe::Vector, DataType::F16}, MemLevel::Hbm, "vector_f16", kAmdValuF16},      \
      Q{kFlops, {Pipe::Vector, DataType::F32}, MemLevel::Hbm, "vector_f32", kAmdValuF32},  \
      Q{kFlops, {Pipe::Vector, DataType::F64}, MemLevel::Hbm, "vector_f64", kAmdValuF64},  \
      Q{kFlops, {Pipe::Matrix, DataType::F16}, MemLevel::Hbm, "matrix_f16", kAmdMfmaF16},  \
      Q{kFlops, {Pipe::Matrix, DataType::BF16}, MemLevel::Hbm, "matrix_bf16", kAmdMfmaBF16}, \
      Q{kFlops, {Pipe::Matrix, DataType::F32}, MemLevel::Hbm, "matrix_f32", kAmdMfmaF32},  \
      Q{kFlops, {Pipe::Matrix, DataType::F64}, MemLevel::Hbm, "matrix_f64", kAmdMfmaF64}

#define AMD_COMMON_BYTES                                         \
  Q{kBytes, {}, MemLevel::L2, "l2", kAmdL2}, Q{kBytes, {}, MemLevel::L1, "l1", kAmdL1}, \
      Q{kBytes, {}, MemLevel::Lds, "lds", kAmdLds}

constexpr Q kCdna2[] = {
    AMD_COMMON_FLOPS,
    Q{kFlops, {Pipe::Matrix, DataType::I8}, MemLevel::Hbm, "matrix_i8", kAmdMfmaI8},
    Q{kBytes, {}, MemLevel::Hbm, "hbm_read", kCdna2HbmRead},
    Q{kBytes, {}, MemLevel::Hbm, "hbm_write", kCdna2HbmWrite},
    AMD_COMMON_BYTES,
};
constexpr Q kCdna3[] = {
    AMD_COMMON_FLOPS,
    Q{kFlops, {Pipe::Matrix, DataType::F8}, MemLevel::Hbm, "matrix_f8", kAmdMfmaF8},
    Q{kFlops, {Pipe::Matrix, DataType::I8}, MemLevel::Hbm, "matrix_i8", kAmdMfmaI8},
    Q{kBytes, {}, MemLevel::Hbm, "hbm_read", kCdna3HbmRead},
    Q{kBytes, {}, MemLevel::Hbm, "hbm_write", kCdna3HbmWrite},
    AMD_COMMON_BYTES,
};
constexpr Q kCdna4[] = {
    AMD_COMMON_FLOPS,
    Q{kFlops, {Pipe::Matrix, DataType::F8}, MemLevel::Hbm, "matrix_f8", kAmdMfmaF8},
    Q{kFlops, {Pipe::Matrix, DataType::F6F4}, MemLevel::Hbm, "matrix_f6f4", kAmdMfmaF6F4},
    Q{kFlops, {Pipe::Matrix, DataType::I8}, MemLevel::Hbm, "matrix_i8", kAmdMfmaI8},
    Q{kBytes, {}, MemLevel::Hbm, "hbm_read", kCdna3HbmRead},
    Q{kBytes, {}, MemLevel::Hbm, "hbm_write", kCdna3HbmWrite},
    AMD_COMMON_BYTES,
};
#undef AMD_COMMON_FLOPS
#undef AMD_COMMON_BYTES

// ---- AMD RDNA (gfx1010, gfx1030-gfx1032, gfx1100-gfx1102): device-memory bytes only. rocprofiler-sdk
// counter_defs.yaml (ROCm/rocprofiler-sdk 8ab1ed7) defines for these FETCH_SIZE and WRITE_SIZE as
//   read  = 32*GL2C_EA_RDREQ_32B_sum + 64*..._64B_sum + 96*..._96B_sum + 128*..._128B_sum
//   write = 32*(GL2C_MC_WRREQ_sum - GL2C_EA_WRREQ_64B_sum) + 64*GL2C_EA_WRREQ_64B_sum
// and no FLOP counters (no SQ_INSTS_VALU_{ADD,MUL,FMA,TRANS}_*): FLOPs, intensity and the roof stay unknown.
constexpr CounterTerm kRdnaHbmRead[] = {{"GL2C_EA_RDREQ_32B_sum", 32}, {"GL2C_EA_RDREQ_64B_sum", 64},
                                        {"GL2C_EA_RDREQ_96B_sum", 96}, {"GL2C_EA_RDREQ_128B_sum", 128}};
constexpr CounterTerm kRdnaHbmWrite[] = {{"GL2C_MC_WRREQ_sum", 32}, {"GL2C_EA_WRREQ_64B_sum", 32}};
constexpr Q kRdna[] = {
    Q{kBytes, {}, MemLevel::Hbm, "hbm_read", kRdnaHbmRead},
    Q{kBytes, {}, MemLevel::Hbm, "hbm_write", kRdnaHbmWrite},
};
constexpr std::string_view kRdnaWithByteCounters[] = {"gfx1010", "gfx1030", "gfx1031", "gfx1032",
                                                      "gfx1100", "gfx1101", "gfx1102"};

// ---- NVIDIA (ncu). Vector FLOPs: SASS thread-instruction counts with FMA counted twice:
//   FLOPs = ADD + MUL + 2*FMA per precision (smsp__sass_thread_inst_executed_op_<op>_pred_on.sum).
//   Verified on an H100: a kernel of 16 x 2^24 scalar FMAs read ffma = 268,435,456 (f32, f64 dfma and
//   f16 hfma alike). Packed HFMA2 counting is unverified (see device_specs.cpp).
// Tensor FLOPs: sm__ops_path_tensor_src_<type>.sum already counts an FMA as 2 operations: verified on an
//   H100 with 1024 warps x 32 wmma 16x16x16 f16 products = 134,217,728 MACs -> 268,435,456.
// Bytes: dram__bytes_{read,write}.sum (device memory), lts__t_bytes.sum (L2), l1tex__t_bytes.sum (L1),
//   smsp__sass_data_bytes_mem_shared.sum (shared memory).
constexpr CounterTerm kNvF64[] = {{"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", 1},
                                  {"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", 1},
                                  {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", 2}};
constexpr CounterTerm kNvF32[] = {{"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 1},
                                  {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 1},
                                  {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 2}};
constexpr CounterTerm kNvF16[] = {{"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", 1},
                                  {"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", 1},
                                  {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", 2}};
constexpr CounterTerm kNvTensorF16[] = {{"sm__ops_path_tensor_src_fp16.sum", 1}};
constexpr CounterTerm kNvTensorBF16[] = {{"sm__ops_path_tensor_src_bf16_dst_fp32.sum", 1}};
constexpr CounterTerm kNvTensorTF32[] = {{"sm__ops_path_tensor_src_tf32_dst_fp32.sum", 1}};
constexpr CounterTerm kNvTensorF64[] = {{"sm__ops_path_tensor_src_fp64.sum", 1}};
constexpr CounterTerm kNvTensorF8[] = {{"sm__ops_path_tensor_src_fp8.sum", 1}};
constexpr CounterTerm kNvTensorI8[] = {{"sm__ops_path_tensor_src_int8.sum", 1}};
constexpr CounterTerm kNvDram[] = {{"dram__bytes_read.sum", 1}, {"dram__bytes_write.sum", 1}};
constexpr CounterTerm kNvL2[] = {{"lts__t_bytes.sum", 1}};
constexpr CounterTerm kNvL1[] = {{"l1tex__t_bytes.sum", 1}};
constexpr CounterTerm kNvShared[] = {{"smsp__sass_data_bytes_mem_shared.sum", 1}};

#define NV_COMMON                                                                               \
  Q{kFlops, {Pipe::Vector, DataType::F64}, MemLevel::Hbm, "vector_f64", kNvF64},                 \
      Q{kFlops, {Pipe::Vector, DataType::F32}, MemLevel::Hbm, "vector_f32", kNvF32},             \
      Q{kFlops, {Pipe::Vector, DataType::F16}, MemLevel::Hbm, "vector_f16", kNvF16},             \
      Q{kFlops, {Pipe::Matrix, DataType::F16}, MemLevel::Hbm, "matrix_f16", kNvTensorF16},       \
      Q{kFlops, {Pipe::Matrix, DataType::BF16}, MemLevel::Hbm, "matrix_bf16", kNvTensorBF16},    \
      Q{kFlops, {Pipe::Matrix, DataType::TF32}, MemLevel::Hbm, "matrix_tf32", kNvTensorTF32},    \
      Q{kFlops, {Pipe::Matrix, DataType::F64}, MemLevel::Hbm, "matrix_f64", kNvTensorF64},       \
      Q{kFlops, {Pipe::Matrix, DataType::I8}, MemLevel::Hbm, "matrix_i8", kNvTensorI8},          \
      Q{kBytes, {}, MemLevel::Hbm, "dram", kNvDram}, Q{kBytes, {}, MemLevel::L2, "l2", kNvL2},  \
      Q{kBytes, {}, MemLevel::L1, "l1", kNvL1}, Q{kBytes, {}, MemLevel::Lds, "shared", kNvShared}

// FP8 tensor cores exist from sm_89 (Ada) and sm_90 (Hopper) on; asking ncu for a metric the chip lacks
// fails the whole run, so older chips get the set without it.
constexpr Q kNvidiaWithF8[] = {NV_COMMON, Q{kFlops, {Pipe::Matrix, DataType::F8}, MemLevel::Hbm, "matrix_f8", kNvTensorF8}};
constexpr Q kNvidia[] = {NV_COMMON};
#undef NV_COMMON

constexpr std::string_view kNcuDuration = "gpu__time_duration.sum";

int sm_version(const std::string& arch) {  // "sm_90" -> 90; 0 if not an sm_ name
  if (arch.rfind("sm_", 0) != 0) return 0;
  try {
    return std::stoi(arch.substr(3));
  } catch (...) {
    return 0;
  }
}

struct BlockLimit {
  std::string_view block;
  int limit;
};
// Per-pass limits of the gfx908/90a/94x/950 perfmon configuration (reference §4.1, §3.2).
// GL2C is RDNA's L2 block: its per-pass limit is in none of our references, so one counter per pass (safe by
// construction, at one application run per counter).
constexpr BlockLimit kAmdBlockLimits[] = {{"SQ", 8},  {"TA", 2},  {"TD", 2},   {"TCP", 4},  {"TCC", 4}, {"CPC", 2},
                                          {"CPF", 2}, {"SPI", 6}, {"GRBM", 2}, {"GDS", 4}, {"GL2C", 1}};

}  // namespace

const char* to_string(CounterFamily f) {
  switch (f) {
    case CounterFamily::None: return "none";
    case CounterFamily::AmdCdna2: return "amd_cdna2";
    case CounterFamily::AmdCdna3: return "amd_cdna3";
    case CounterFamily::AmdCdna4: return "amd_cdna4";
    case CounterFamily::AmdRdna: return "amd_rdna";
    case CounterFamily::Nvidia: return "nvidia";
  }
  return "none";
}

CounterFamily counter_family(std::string_view arch_in) {
  const std::string arch = normalize_arch(arch_in);
  if (arch == "gfx90a") return CounterFamily::AmdCdna2;
  if (arch == "gfx940" || arch == "gfx941" || arch == "gfx942") return CounterFamily::AmdCdna3;
  if (arch == "gfx950") return CounterFamily::AmdCdna4;
  if (arch.rfind("gfx10", 0) == 0 || arch.rfind("gfx11", 0) == 0 || arch.rfind("gfx12", 0) == 0)
    return CounterFamily::AmdRdna;
  if (sm_version(arch) >= 70) return CounterFamily::Nvidia;
  return CounterFamily::None;
}

RooflineCounterSet roofline_counter_set(std::string_view arch_in) {
  const std::string arch = normalize_arch(arch_in);
  RooflineCounterSet set;
  set.family = counter_family(arch);
  switch (set.family) {
    case CounterFamily::AmdCdna2: set.quantities = kCdna2; break;
    case CounterFamily::AmdCdna3: set.quantities = kCdna3; break;
    case CounterFamily::AmdCdna4: set.quantities = kCdna4; break;
    case CounterFamily::Nvidia:
      set.quantities = sm_version(arch) >= 89 ? std::span<const Q>(kNvidiaWithF8) : std::span<const Q>(kNvidia);
      set.duration_counter = kNcuDuration;
      break;
    case CounterFamily::AmdRdna:
      if (std::find(std::begin(kRdnaWithByteCounters), std::end(kRdnaWithByteCounters), arch) !=
          std::end(kRdnaWithByteCounters)) {
        set.quantities = kRdna;
        set.flop_counters = false;
        set.limitation =
            arch + " (RDNA) has no FLOP counters (SQ_INSTS_VALU_{ADD,MUL,FMA,TRANS}_* are not defined for gfx10/gfx11 "
                   "in rocprofiler-sdk counter_defs.yaml): the point places the kernel's device-memory traffic "
                   "(GL2C_EA / GL2C_MC requests, as FETCH_SIZE and WRITE_SIZE) against the memory-bandwidth ceiling; "
                   "its FLOP/s, arithmetic intensity, roof and side of the ridge are unknown, and L2, L1 and LDS are "
                   "not placed (their byte counters are not defined there)";
        break;
      }
      set.unavailable_reason =
          arch + " (RDNA) has no roofline counters: no FLOP counters (SQ_INSTS_VALU_{ADD,MUL,FMA,TRANS}_*) are defined "
                 "for gfx10/gfx11/gfx12, and the GL2C memory-request counters are known only for gfx1010, "
                 "gfx1030-gfx1032 and gfx1100-gfx1102 (rocprofiler-sdk counter_defs.yaml)";
      break;
    case CounterFamily::None:
      set.unavailable_reason = "no roofline counter set is known for architecture '" + arch + "'";
      break;
  }
  return set;
}

std::vector<std::string> roofline_counter_names(const RooflineCounterSet& set) {
  std::vector<std::string> names;
  auto add = [&](std::string_view n) {
    if (std::find(names.begin(), names.end(), n) == names.end()) names.emplace_back(n);
  };
  if (!set.duration_counter.empty()) add(set.duration_counter);
  for (const auto& q : set.quantities)
    for (const auto& t : q.terms) add(t.counter);
  return names;
}

std::string_view amd_counter_block(std::string_view counter) { return counter.substr(0, counter.find('_')); }

int amd_block_limit(std::string_view counter) {
  const std::string_view block = amd_counter_block(counter);
  for (const auto& b : kAmdBlockLimits)
    if (b.block == block) return b.limit;
  return 0;
}

std::vector<std::vector<std::string>> split_amd_passes(const RooflineCounterSet& set) {
  struct Pass {
    std::vector<std::string> counters;
    std::map<std::string_view, int> used;  // per block; a handful of entries
  };
  std::vector<Pass> passes;
  auto fits = [](const Pass& p, const std::vector<std::string_view>& add) {
    std::map<std::string_view, int> extra;
    for (auto c : add)
      if (std::find(p.counters.begin(), p.counters.end(), c) == p.counters.end()) ++extra[amd_counter_block(c)];
    for (const auto& [block, n] : extra) {
      auto it = p.used.find(block);
      if ((it == p.used.end() ? 0 : it->second) + n > amd_block_limit(block)) return false;
    }
    return true;
  };
  auto place = [](Pass& p, std::string_view c) {
    if (std::find(p.counters.begin(), p.counters.end(), c) != p.counters.end()) return;
    p.counters.emplace_back(c);
    ++p.used[amd_counter_block(p.counters.back())];
  };
  for (const auto& q : set.quantities) {
    std::vector<std::string_view> group;
    for (const auto& t : q.terms) {
      if (amd_block_limit(t.counter) == 0)
        throw Error(ExitCode::Usage, "counter '" + std::string(t.counter) + "' belongs to no known counter block");
      if (std::find(group.begin(), group.end(), t.counter) == group.end()) group.push_back(t.counter);
    }
    // Already fully placed (a counter shared with an earlier quantity)?
    bool placed = false;
    for (auto& p : passes)
      if (fits(p, group)) {
        for (auto c : group) place(p, c);
        placed = true;
        break;
      }
    if (placed) continue;
    Pass fresh;
    if (fits(fresh, group)) {
      for (auto c : group) place(fresh, c);
      passes.push_back(std::move(fresh));
      continue;
    }
    // The quantity alone exceeds a block limit: place its counters one by one. The roofline combines
    // them as rates, each over the dispatches of its own pass.
    for (auto c : group) {
      bool done = false;
      for (auto& p : passes)
        if (fits(p, {c})) {
          place(p, c);
          done = true;
          break;
        }
      if (!done) {
        passes.emplace_back();
        place(passes.back(), c);
      }
    }
  }
  std::vector<std::vector<std::string>> out;
  for (auto& p : passes) out.push_back(std::move(p.counters));
  return out;
}

std::string rocprofv3_pmc_input(std::string_view arch) {
  const auto set = roofline_counter_set(arch);
  if (set.family == CounterFamily::Nvidia)
    throw Error(ExitCode::Usage, std::string(arch) + " is an NVIDIA architecture: use the ncu metric list");
  if (set.quantities.empty()) throw Error(ExitCode::Usage, set.unavailable_reason);
  const auto passes = split_amd_passes(set);
  std::string text = "# rocm-perf roofline counters for " + normalize_arch(arch) + " (" + to_string(set.family) +
                     "): " + std::to_string(passes.size()) +
                     " passes, one application run each.\n"
                     "# Per-pass block limits: SQ 8, TA 2, TD 2, TCP 4, TCC 4, CPC 2, CPF 2, SPI 6, GRBM 2, GDS 4; GL2C 1 (RDNA: "
                     "its limit is unknown).\n";
  for (const auto& p : passes) {
    text += "pmc:";
    for (const auto& c : p) text += " " + c;
    text += "\n";
  }
  return text;
}

std::vector<std::string> ncu_roofline_metrics(std::string_view arch) {
  const auto set = roofline_counter_set(arch);
  if (set.family != CounterFamily::Nvidia)
    throw Error(ExitCode::Usage, std::string(arch) + " is not an NVIDIA architecture (sm_XX)");
  return roofline_counter_names(set);
}

}  // namespace rpl::analysis
