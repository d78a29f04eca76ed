#include "collectors/kernel_resources.hpp"

#include <fmt/format.h>

#include "collectors/amd/code_object.hpp"
#include "collectors/amd/offload_bundle.hpp"
#include "collectors/binary_image.hpp"
#include "collectors/nvidia/cubin_resources.hpp"
#include "support/errors.hpp"

namespace rpl::collectors {

const char* to_string(GpuVendor vendor) { return vendor == GpuVendor::Amd ? "amd" : "nvidia"; }

namespace {

// A CUDA fat binary file (nvcc -fatbin) starts with the fatbin wrapper magic 0xBA55ED50.
constexpr std::string_view kCudaFatbinMagic{"\x50\xed\x55\xba", 4};

void append_code_object(Bytes image, const std::string& what, const std::string& container,
                        std::vector<BinaryKernelResources>& out) {
  const amd::CodeObject co = amd::read_code_object(image, what);
  const bool unified = amd::has_unified_vgpr_file(co.processor);
  for (const auto& k : co.kernels) {
    BinaryKernelResources r;
    r.vendor = GpuVendor::Amd;
    r.mangled = k.name;
    r.name = demangle(k.name);
    r.symbol = k.symbol;
    r.arch = co.processor;
    r.target = co.target;
    r.container = container;
    r.code_object_version = co.code_object_version;
    // .vgpr_count is the unified total on gfx90a+; keep arch + accum equal to it.
    r.arch_vgprs = unified && k.vgpr_count >= k.agpr_count ? k.vgpr_count - k.agpr_count : k.vgpr_count;
    r.accum_vgprs = k.agpr_count;
    r.sgprs = k.sgpr_count;
    r.lds_bytes = k.group_segment_fixed_size;
    r.scratch_bytes = k.private_segment_fixed_size;
    r.wave_size = k.wavefront_size;
    r.max_threads_per_block = k.max_flat_workgroup_size;
    r.kernarg_bytes = k.kernarg_segment_size;
    r.sgpr_spills = k.sgpr_spill_count;
    r.vgpr_spills = k.vgpr_spill_count;
    r.uses_dynamic_stack = k.uses_dynamic_stack;
    if (k.descriptor) {
      const amd::RegisterAllocation a = amd::allocated_registers(co.processor, *k.descriptor);
      r.alloc_arch_vgprs = a.arch_vgprs;
      r.alloc_accum_vgprs = a.accum_vgprs;
      r.alloc_sgprs = a.sgprs;
    }
    out.push_back(std::move(r));
  }
}

// Every AMD GPU code object in the bundles of `region`. Returns false when the region has no AMD entry.
bool append_bundles(Bytes region, const std::string& what, std::vector<BinaryKernelResources>& out) {
  const amd::OffloadBundles bundles = amd::read_offload_bundles(region, what);
  bool any = false;
  for (const auto& entry : bundles.entries) {
    if (!amd::is_amdgpu_entry(entry.id) || entry.bytes.empty()) continue;
    any = true;
    append_code_object(entry.bytes, fmt::format("{} [{}]", what, entry.id), entry.id, out);
  }
  return any;
}

void append_nvidia(const std::string& path, const std::string& default_arch, const std::string& container,
                   const ReadOptions& options, std::vector<BinaryKernelResources>& out) {
  for (auto& f : nvidia::read_cubin_resources(path, default_arch, options.cuobjdump)) {
    BinaryKernelResources r;
    r.vendor = GpuVendor::Nvidia;
    r.name = demangle(f.name);
    r.mangled = f.name;
    r.symbol = f.name;
    r.arch = f.arch;
    r.target = f.arch;
    r.container = container;
    r.arch_vgprs = f.registers;
    r.lds_bytes = f.shared;
    r.scratch_bytes = f.stack + f.local;
    r.wave_size = 32;
    r.constant_bytes = f.constant0;
    out.push_back(std::move(r));
  }
}

}  // namespace

std::vector<BinaryKernelResources> read_kernel_resources(const std::string& path, const ReadOptions& options) {
  const MappedFile file(path);
  const Bytes bytes = file.bytes();
  std::vector<BinaryKernelResources> out;

  if (starts_with(bytes, amd::kBundleMagic) || starts_with(bytes, amd::kCompressedBundleMagic)) {
    if (!append_bundles(bytes, path, out)) {
      throw Error(ExitCode::InputInvalid,
                  fmt::format("{}: clang offload bundle without an AMD GPU (amdgcn) code object", path));
    }
    return out;
  }
  if (starts_with(bytes, kCudaFatbinMagic)) {
    append_nvidia(path, {}, "fatbin", options, out);
    return out;
  }
  if (!is_elf(bytes)) {
    throw Error(ExitCode::InputInvalid,
                fmt::format("{}: not a GPU binary (neither ELF, a clang offload bundle nor a CUDA fatbin)", path));
  }

  const ElfImage elf(bytes, path);
  if (elf.machine() == kElfMachineAmdgpu) {
    append_code_object(bytes, path, {}, out);
    return out;
  }
  if (elf.machine() == kElfMachineCuda) {
    append_nvidia(path, nvidia::cubin_arch(elf.abi_version(), elf.flags()), {}, options, out);
    return out;
  }
  // A host binary: HIP keeps its bundles in .hip_fatbin, nvcc its fatbin in .nv_fatbin
  // (__nv_relfatbin in objects built for relocatable device code).
  bool has_gpu_code = false;
  if (auto hip = elf.section(".hip_fatbin")) has_gpu_code = append_bundles(*hip, path, out);
  if (elf.section(".nv_fatbin") || elf.section("__nv_relfatbin")) {
    has_gpu_code = true;
    append_nvidia(path, {}, "fatbin", options, out);
  }
  if (!has_gpu_code && elf.section(".llvm.offloading")) {
    throw Error(ExitCode::InputInvalid,
                fmt::format("{}: device code is in .llvm.offloading (clang's new offload driver), which is not "
                            "supported yet; rebuild without --offload-new-driver or pass an extracted code object",
                            path));
  }
  if (!has_gpu_code) {
    throw Error(ExitCode::InputInvalid,
                fmt::format("{}: ELF file (machine {}) without GPU code: no .hip_fatbin with an AMD code object, "
                            "no .nv_fatbin",
                            path, elf.machine()));
  }
  return out;
}

}  // namespace rpl::collectors
