#include "support/user_regex.hpp"
#include "app/resources.hpp"

#include <fmt/core.h>


#include "support/errors.hpp"

namespace rpl::app {
namespace {

// On gfx90a and newer the hardware allocates VGPRs in granules; the descriptor's allocation (what rocpd
// records) is what occupancy depends on, the compiler's count otherwise.
analysis::KernelResources occupancy_inputs(const collectors::BinaryKernelResources& k, uint32_t block,
                                           uint32_t dynamic_lds) {
  analysis::KernelResources r;
  r.threads_per_block = block;
  r.arch_vgprs = k.alloc_arch_vgprs ? k.alloc_arch_vgprs : k.arch_vgprs;
  r.accum_vgprs = k.alloc_arch_vgprs ? k.alloc_accum_vgprs : k.accum_vgprs;
  r.sgprs = k.sgprs;
  r.lds_bytes = k.lds_bytes + dynamic_lds;
  r.wave_size = k.wave_size;
  return r;
}

// A file that is not a GPU binary, or a damaged one, is input in the wrong format or corrupt (exit 4, as a
// trace that is not SQLite): "invalid data" (7) is the trace's own rules.
std::vector<collectors::BinaryKernelResources> read_binary(const std::string& file) {
  try {
    return collectors::read_kernel_resources(file);
  } catch (const Error& e) {
    if (e.code() != ExitCode::InputInvalid) throw;
    throw Error(ExitCode::InputCorrupt, e.what());
  }
}

}  // namespace

std::vector<KernelResourcesReport> run_resources(const ResourcesOptions& o) {
  std::optional<UserRegex> filter;
  if (!o.kernel_filter.empty()) filter.emplace(o.kernel_filter, "--kernel");
  std::vector<KernelResourcesReport> out;
  for (const auto& file : o.binaries) {
    for (auto& k : read_binary(file)) {
      if (filter && !filter->search(k.name)) continue;
      KernelResourcesReport r;
      r.file = file;
      r.block_size = o.block_size ? o.block_size : (k.max_threads_per_block ? k.max_threads_per_block : 256);
      auto limits = analysis::arch_limits(k.arch);
      if (!limits) {
        r.occupancy_unavailable = fmt::format("no occupancy limits known for architecture '{}'", k.arch);
      } else {
        try {
          r.occupancy = analysis::compute_occupancy(*limits, occupancy_inputs(k, r.block_size, o.dynamic_lds_bytes));
        } catch (const Error& e) {
          r.occupancy_unavailable = e.what();  // e.g. a block larger than the kernel or the GPU allows
        }
      }
      r.kernel = std::move(k);
      out.push_back(std::move(r));
    }
  }
  if (filter && out.empty())  // as `analyze --kernel`: nothing to report is exit 6, not an empty success
    throw Error(ExitCode::InputEmpty, fmt::format("no kernel in the given binaries matches --kernel '{}'",
                                                  o.kernel_filter));
  return out;
}

}  // namespace rpl::app
