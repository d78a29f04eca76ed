#pragma once
// The `resources` application: the kernels of a GPU binary (AMD code object / fat binary, NVIDIA cubin /
// executable), their register, LDS and scratch use as the compiler recorded it, and the theoretical
// occupancy that gives at a launch configuration.
#include <optional>
#include <string>
#include <vector>

#include "analysis/occupancy.hpp"
#include "collectors/kernel_resources.hpp"

namespace rpl::app {

struct ResourcesOptions {
  std::vector<std::string> binaries;
  uint32_t block_size = 0;         // threads per block; 0: the kernel's maximum if recorded, else 256
  uint32_t dynamic_lds_bytes = 0;  // added to each kernel's static LDS
  std::string kernel_filter;       // regex over the demangled name; empty: all
};

struct KernelResourcesReport {
  std::string file;
  collectors::BinaryKernelResources kernel;
  uint32_t block_size = 0;
  std::optional<analysis::Occupancy> occupancy;
  std::string occupancy_unavailable;  // why occupancy is absent
};

std::vector<KernelResourcesReport> run_resources(const ResourcesOptions& options);

}  // namespace rpl::app
