#pragma once
// AMDGPU code objects (HSACO): per-kernel resource usage from the NT_AMDGPU_METADATA note (MessagePack)
// and the 64-byte kernel descriptors. Facts: reference amd-profiling-stack.md §6.1 and §6.2.
// Pure file parsing: neither HSA nor comgr is needed.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectors/binary_image.hpp"

namespace rpl::collectors::amd {

inline constexpr uint8_t kElfOsAbiAmdgpuHsa = 64;
inline constexpr uint32_t kNoteAmdgpuMetadata = 32;  // NT_AMDGPU_METADATA, owner "AMDGPU"
inline constexpr std::size_t kKernelDescriptorSize = 64;

// The kernel descriptor (symbol "<kernel>.kd", 64 bytes; LLVM AMDHSAKernelDescriptor.h), the fields that
// matter for resources. It is what the loader and rocprofiler-sdk read.
struct KernelDescriptor {
  uint32_t group_segment_fixed_size = 0;    // byte 0
  uint32_t private_segment_fixed_size = 0;  // byte 4
  uint32_t kernarg_size = 0;                // byte 8
  uint32_t compute_pgm_rsrc3 = 0;           // byte 44
  uint32_t compute_pgm_rsrc1 = 0;           // byte 48
  uint32_t compute_pgm_rsrc2 = 0;           // byte 52
  uint16_t kernel_code_properties = 0;      // byte 56

  bool wave32() const { return (kernel_code_properties & (1u << 10)) != 0; }  // ENABLE_WAVEFRONT_SIZE32
  uint32_t granulated_vgprs() const { return compute_pgm_rsrc1 & 0x3f; }        // rsrc1[5:0]
  uint32_t granulated_sgprs() const { return (compute_pgm_rsrc1 >> 6) & 0xf; }  // rsrc1[9:6]
  uint32_t accum_offset() const { return compute_pgm_rsrc3 & 0x3f; }            // rsrc3[5:0], gfx90a+
};

// One kernel argument as the metadata's .args list describes it (the kernarg ABI).
struct KernelArg {
  uint32_t offset = 0;
  uint32_t size = 0;
  std::string value_kind;     // by_value, global_buffer, hidden_global_offset_x, hidden_hostcall_buffer, ...
  std::string address_space;  // global, constant, local, ... ("" for by-value)
  bool is_const = false;
  bool is_restrict = false;
  bool is_volatile = false;
  uint32_t pointee_align = 0;
};

// One kernel as its metadata describes it. Register counts are the *used* counts (highest register + 1;
// SGPRs include VCC / FLAT_SCRATCH / XNACK extras), not allocation granules. On gfx90a/gfx94x/gfx950
// .vgpr_count is the unified total alignTo(arch, 4) + agpr when AGPRs are used.
struct CodeObjectKernel {
  std::string name;    // .name, the mangled kernel name
  std::string symbol;  // .symbol, "<name>.kd"
  uint32_t sgpr_count = 0;
  uint32_t vgpr_count = 0;
  uint32_t agpr_count = 0;  // absent before gfx908: 0
  uint32_t group_segment_fixed_size = 0;    // static LDS bytes
  uint32_t private_segment_fixed_size = 0;  // scratch bytes per work-item
  uint32_t kernarg_segment_size = 0;
  uint32_t wavefront_size = 0;
  uint32_t max_flat_workgroup_size = 0;
  uint32_t sgpr_spill_count = 0;
  uint32_t vgpr_spill_count = 0;
  bool uses_dynamic_stack = false;
  uint32_t kernarg_segment_align = 0;
  std::vector<KernelArg> args;                   // .args, in order
  std::vector<uint32_t> reqd_workgroup_size;     // .reqd_workgroup_size, empty when not given
  std::optional<KernelDescriptor> descriptor;  // nullopt when the .kd symbol is not in the symbol table
};

struct CodeObject {
  std::string target;      // amdhsa.target, "amdgcn-amd-amdhsa--gfx90a:xnack-"
  std::string processor;   // "gfx90a" (the target without triple and features)
  int code_object_version = 0;  // 3..6, from amdhsa.version ([1,1] = 4), else from EI_ABIVERSION
  std::vector<CodeObjectKernel> kernels;
};

// Reads one code object image. `what` names it in errors. Throws rpl::Error:
//  InputInvalid  not ELF; ELF for another machine; not an HSA code object; no NT_AMDGPU_METADATA note
//                (code object v2, or a stripped image);
//  InputCorrupt  damaged ELF; metadata that is not valid MessagePack or lacks a required key.
CodeObject read_code_object(Bytes image, const std::string& what);

// "gfx90a" from "amdgcn-amd-amdhsa--gfx90a:xnack-"; empty when the target has no processor.
std::string processor_of_target(const std::string& target);
// The GFX major version: 9 for "gfx90a", 10 for "gfx1030", 0 when not a gfx name.
int gfx_major(const std::string& processor);
// gfx90a, gfx94x, gfx95x: one unified 512-entry VGPR file split by ACCUM_OFFSET.
bool has_unified_vgpr_file(const std::string& processor);

// What the hardware reserves per lane / per wave, decoded from the descriptor the way rocprofiler-sdk
// fills rocpd's arch_vgpr_count / accum_vgpr_count / sgpr_count (§6.1, but with gfx950 handled like
// gfx94x). sgprs is 0 on gfx10+, where SGPRs are not allocated per wave.
struct RegisterAllocation {
  uint32_t vgprs = 0;        // total VGPRs per lane (arch + accum)
  uint32_t arch_vgprs = 0;
  uint32_t accum_vgprs = 0;
  uint32_t sgprs = 0;
};
RegisterAllocation allocated_registers(const std::string& processor, const KernelDescriptor& descriptor);

}  // namespace rpl::collectors::amd
