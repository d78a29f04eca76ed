// TEST DOUBLE — not AMD's rocprofv3-avail. Prints `rocprofv3-avail [-d N] list --pmc` in the layout of
// ROCm 7.x's tool ("GPU : N", "Name : gfxNNN", "PMC :" and the counter names in columns), for the tests of
// `rocm-perf counters list` and of the --counters check. The counter names per architecture are those the
// project's reference notes list from ROCm 7.0's counter_defs.yaml.
//   FAKE_ROCPROFV3_ARCH        gfx90a (default) | gfx942 | gfx1030 | gfx1100 (RDNA: no FLOP, TCC, TCP counters)
//   FAKE_ROCPROFV3_AVAIL_MODE  ok (default) | fail (exit 1, a message on stderr) | garbage (no agent block)
#include <fmt/core.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::vector<std::string> counters_for(const std::string& arch) {
  if (arch == "gfx1030" || arch == "gfx1100") {
    // RDNA: rocprofiler-sdk counter_defs.yaml (8ab1ed7) names defined for both; no FLOP, TCC or TCP counters.
    std::vector<std::string> c = {"SQ_WAVES", "SQ_WAVE_CYCLES", "SQ_BUSY_CYCLES", "SQ_INSTS_VALU", "SQ_INSTS_SALU",
                                  "SQ_INSTS_SMEM", "SQ_INSTS_LDS", "SQ_INSTS_FLAT", "SQ_WAIT_ANY", "SQ_WAIT_INST_ANY",
                                  "SQ_WAIT_INST_LDS", "SQ_INSTS_WAVE32", "SQ_INSTS_WAVE32_VALU", "SQ_WAVE32_INSTS",
                                  "SQ_WAVE64_INSTS", "SQC_LDS_IDX_ACTIVE", "SQC_LDS_BANK_CONFLICT", "GRBM_GUI_ACTIVE",
                                  "GRBM_COUNT", "GPUBusy", "TA_TA_BUSY", "GL2C_HIT", "GL2C_HIT_sum", "GL2C_MISS",
                                  "GL2C_MISS_sum", "GL2C_MC_RDREQ_sum", "GL2C_MC_WRREQ_sum", "GL2C_MC_WRREQ_STALL",
                                  "GL2C_EA_WRREQ_64B_sum", "FETCH_SIZE", "WRITE_SIZE", "L2CacheHit"};
    for (const char* n : {"32B", "64B", "96B", "128B"}) c.push_back(fmt::format("GL2C_EA_RDREQ_{}_sum", n));
    for (const char* n : arch == "gfx1030" ? std::vector<const char*>{"TA_FLAT_LOAD_WAVEFRONTS_sum", "TA_FLAT_STORE_WAVEFRONTS_sum"}
                                           : std::vector<const char*>{"TA_BUFFER_LOAD_WAVEFRONTS_sum", "TA_BUFFER_STORE_WAVEFRONTS_sum"})
      c.push_back(n);
    return c;
  }
  std::vector<std::string> c = {"SQ_WAVES", "SQ_WAVE_CYCLES", "SQ_BUSY_CYCLES", "SQ_BUSY_CU_CYCLES", "SQ_INSTS_VALU",
                                "SQ_ACTIVE_INST_VALU", "SQ_THREAD_CYCLES_VALU", "SQ_VALU_MFMA_BUSY_CYCLES", "SQ_INSTS_SALU", "SQ_INSTS_SMEM", "SQ_WAIT_INST_ANY",
                                "SQ_INSTS_VMEM_RD", "SQ_INSTS_VMEM_WR", "SQ_LDS_IDX_ACTIVE", "SQ_LDS_BANK_CONFLICT",
                                "SQ_INSTS_VALU_INT32", "SQ_INSTS_VALU_INT64", "GRBM_GUI_ACTIVE", "GRBM_COUNT",
                                "TCC_HIT_sum", "TCC_MISS_sum", "TCC_REQ_sum", "TCC_ATOMIC_sum", "TCC_BUBBLE_sum",
                                "TCP_TCC_READ_REQ_sum", "TCP_TCC_WRITE_REQ_sum", "TCP_TCC_ATOMIC_WITH_RET_REQ_sum",
                                "TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum", "TCP_TOTAL_CACHE_ACCESSES_sum", "GPUBusy",
                                "Wavefronts", "FETCH_SIZE", "WRITE_SIZE"};
  for (const char* op : {"ADD", "MUL", "FMA", "TRANS"})
    for (const char* t : {"F16", "F32", "F64"}) c.push_back(fmt::format("SQ_INSTS_VALU_{}_{}", op, t));
  for (const char* t : {"I8", "F16", "BF16", "F32", "F64"}) c.push_back(fmt::format("SQ_INSTS_VALU_MFMA_MOPS_{}", t));
  const std::string ea = arch == "gfx942" ? "TCC_EA0_" : "TCC_EA_";
  for (const char* n : {"RDREQ", "RDREQ_32B", "WRREQ", "WRREQ_64B"}) {
    c.push_back(ea + n);
    c.push_back(ea + n + "_sum");
  }
  if (arch == "gfx942") {
    for (const char* n : {"TCC_EA0_RDREQ_DRAM", "TCC_EA0_WRREQ_DRAM", "TCC_EA0_RDREQ_DRAM_sum", "TCC_EA0_WRREQ_DRAM_sum",
                          "SQ_INSTS_VALU_MFMA_MOPS_F8"})
      c.push_back(n);
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = env_or("FAKE_ROCPROFV3_AVAIL_MODE", "ok");
  std::string device = "0";
  bool list = false, pmc = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-d" && i + 1 < argc) device = argv[++i];
    else if (a == "list") list = true;
    else if (a == "--pmc") pmc = true;
    else {
      fmt::print(stderr, "fake rocprofv3-avail: unrecognized argument '{}'\n", a);
      return 2;
    }
  }
  if (!list || !pmc) {
    fmt::print(stderr, "fake rocprofv3-avail: only 'list --pmc' is simulated\n");
    return 2;
  }
  if (mode == "fail") {
    fmt::print(stderr, "fake rocprofv3-avail: simulated failure (no GPU agents found)\n");
    return 1;
  }
  if (mode == "garbage") {
    fmt::print("ROCprofiler-SDK version 1.0\nnothing useful here\n");
    return 0;
  }
  const std::string arch = env_or("FAKE_ROCPROFV3_ARCH", "gfx90a");
  fmt::print("{:<30}: {}\n{:<30}: {}\n{:<30}:\n\n", "GPU", device, "Name", arch, "PMC");
  const auto counters = counters_for(arch);
  for (std::size_t i = 0; i < counters.size(); ++i)
    fmt::print("{:<40}{}", counters[i], (i % 3 == 2 || i + 1 == counters.size()) ? "\n" : "");
  return 0;
}
