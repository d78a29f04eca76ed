#pragma once
// NVIDIA kernel resource usage through the toolkit's own tool: `cuobjdump --dump-resource-usage FILE`
// works on cubins, fatbins and host binaries (including compressed fatbins), so we do not parse the
// undocumented cubin attribute sections ourselves.
//
// Output shape (CUDA 13.0, verified on real binaries; tests/data/cuobjdump/ holds captured samples):
//   Fatbin elf code:            <- absent when the input is a bare cubin
//   ================
//   arch = sm_90
//   ...
//   Resource usage:
//    Common:
//     GLOBAL:0 CONSTANT[3]:64
//    Function _Z9block_sumPKfPf:
//     REG:22 STACK:0 SHARED:2048 LOCAL:0 CONSTANT[0]:544 TEXTURE:0 SURFACE:0 SAMPLER:0
//   Fatbin ptx code:            <- PTX entries carry no resource usage and are skipped
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rpl::collectors::nvidia {

struct CubinFunction {
  std::string name;  // mangled
  std::string arch;  // "sm_80"; empty when neither the output nor the caller knows it
  uint32_t registers = 0;  // REG, per thread
  uint32_t stack = 0;      // STACK, bytes per thread
  uint32_t shared = 0;     // SHARED, static bytes per block
  uint32_t local = 0;      // LOCAL, bytes per thread
  uint32_t constant0 = 0;  // CONSTANT[0], bytes
  uint32_t texture = 0;
  uint32_t surface = 0;
  uint32_t sampler = 0;
  std::vector<std::pair<std::string, uint64_t>> other;  // every other KEY:VALUE (CONSTANT[2], newer keys)
};

// Parses cuobjdump's output. `default_arch` is used for a bare cubin (the output then names no arch).
// `what` names the input in errors. Throws rpl::Error(ProfilerFailed) for a resource line it cannot read.
std::vector<CubinFunction> parse_resource_usage(const std::string& output, const std::string& default_arch,
                                                const std::string& what);

// The cuobjdump to run: `explicit_path` if given (must exist), else PATH, else /usr/local/cuda/bin.
// nullopt when none is found.
std::optional<std::string> find_cuobjdump(const std::string& explicit_path = {});

// Runs cuobjdump on `path` (no shell) and parses its output. Throws rpl::Error: ProfilerFailed when
// cuobjdump is missing, cannot start, is killed or fails; InputInvalid when it reports that the file
// holds no device code.
std::vector<CubinFunction> read_cubin_resources(const std::string& path, const std::string& default_arch = {},
                                                const std::string& cuobjdump = {});

// "sm_90" from a cubin's ELF header (e_flags; the field moved with ELF ABI version 8), or empty.
std::string cubin_arch(uint8_t abi_version, uint32_t flags);

}  // namespace rpl::collectors::nvidia
