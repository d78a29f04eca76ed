#pragma once
// Per-kernel resource usage read from a GPU binary, for the occupancy model (analysis/occupancy.hpp):
// AMD code objects and fat binaries are parsed directly (NT_AMDGPU_METADATA), NVIDIA binaries through
// the toolkit's `cuobjdump --dump-resource-usage`. No GPU runtime, CUPTI or HSA header is involved.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rpl::collectors {

enum class GpuVendor { Amd, Nvidia };
const char* to_string(GpuVendor vendor);

struct BinaryKernelResources {
  GpuVendor vendor = GpuVendor::Amd;
  std::string name;     // demangled ("add_one(float*, int)"); the mangled name when it is not C++
  std::string mangled;  // AMD .name / NVIDIA function name ("_Z7add_onePfi")
  std::string symbol;   // AMD kernel descriptor symbol "<mangled>.kd" (rocpd's kernel_name); NVIDIA: mangled
  std::string arch;     // processor only: "gfx90a", "gfx1030", "sm_90"
  std::string target;   // AMD full target id "amdgcn-amd-amdhsa--gfx90a:xnack-"; NVIDIA: arch
  std::string container;  // where in the file: "" for a plain code object / cubin, else the bundle entry
                          // id ("hipv4-amdgcn-amd-amdhsa--gfx90a") or "fatbin"
  int code_object_version = 0;  // AMD code object version (4, 5, 6); 0 for NVIDIA

  // Used resources, as the compiler reports them.
  // AMD: arch_vgprs = .vgpr_count - .agpr_count on unified-VGPR targets (gfx90a/94x/95x; that is
  //      alignTo(arch, 4) when AGPRs are used, so arch + accum is the unified total), else .vgpr_count.
  // NVIDIA: arch_vgprs = registers per thread (REG).
  uint32_t arch_vgprs = 0;
  uint32_t accum_vgprs = 0;  // AMD .agpr_count; 0 on NVIDIA
  uint32_t sgprs = 0;        // AMD .sgpr_count (with VCC/FLAT_SCRATCH/XNACK); 0 on NVIDIA
  uint32_t lds_bytes = 0;    // static LDS / shared memory per block (dynamic LDS comes from the launch).
                             // NVIDIA sm_90+: cuobjdump's SHARED can include the 1 KiB the system reserves
                             // per block (measured with CUDA 13.0: 2048 for a 1024-byte array).
  uint32_t scratch_bytes = 0;  // per work-item: AMD private segment; NVIDIA STACK + LOCAL
  uint32_t wave_size = 0;      // 64 / 32 (AMD .wavefront_size); 32 on NVIDIA
  uint32_t max_threads_per_block = 0;  // AMD .max_flat_workgroup_size; 0 = not recorded (NVIDIA)
  uint32_t kernarg_bytes = 0;          // AMD .kernarg_segment_size; NVIDIA: 0 (see constant_bytes)
  uint32_t constant_bytes = 0;         // NVIDIA CONSTANT[0] (parameters + driver constants); AMD: 0
  uint32_t sgpr_spills = 0;            // AMD .sgpr_spill_count
  uint32_t vgpr_spills = 0;            // AMD .vgpr_spill_count
  bool uses_dynamic_stack = false;     // AMD: scratch grows at run time beyond scratch_bytes

  // AMD only, from the kernel descriptor when present: what the hardware allocates (granule-rounded),
  // i.e. the values rocprofv3 stores in rocpd_info_kernel_symbol (reference §6.1). 0 when unknown.
  uint32_t alloc_arch_vgprs = 0;
  uint32_t alloc_accum_vgprs = 0;
  uint32_t alloc_sgprs = 0;  // 0 on gfx10+ (not allocated per wave)
};

struct ReadOptions {
  // cuobjdump to run for NVIDIA binaries; empty: PATH, then /usr/local/cuda/bin/cuobjdump.
  std::string cuobjdump;
};

// Detects what `path` is and reads every kernel in it:
//  - an AMDGPU code object (ELF, EM_AMDGPU);
//  - a clang offload bundle file (plain or CCOB-compressed), e.g. `hipcc --cuda-device-only` output;
//  - a host executable, shared library or object with a .hip_fatbin section (one result per kernel per
//    bundled code object);
//  - an NVIDIA cubin (ELF, EM_CUDA), fatbin, or host binary with .nv_fatbin (via cuobjdump).
// Throws rpl::Error: InputMissing (cannot open), InputInvalid (not a GPU binary, no GPU code, unsupported
// format), InputCorrupt (damaged container or metadata), ProfilerFailed (cuobjdump missing or failed).
// An empty result means the binary holds GPU code but no kernels.
std::vector<BinaryKernelResources> read_kernel_resources(const std::string& path,
                                                         const ReadOptions& options = {});

}  // namespace rpl::collectors
