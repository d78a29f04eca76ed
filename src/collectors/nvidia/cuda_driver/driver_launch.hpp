#pragma once
// A kernel launch seen by a CUPTI driver-API callback (cuLaunchKernel, cuLaunchCooperativeKernel,
// cuLaunchKernelEx and their _ptsz forms; runtime launches reach these too), decoded once for the injection
// libraries that watch launches (capture, counters). Header-only: those libraries link no rpl code for it.
#include <cupti.h>  // brings generated_cuda_meta.h: the driver API parameter structs

#include <array>

namespace rpl::collectors {

struct DriverLaunch {
  void* handle = nullptr;  // CUfunction or CUkernel, as the caller passed it
  std::array<unsigned, 3> grid{}, block{};
  unsigned shared_bytes = 0;
  CUstream stream = nullptr;
  void** kernel_params = nullptr;
  void** extra = nullptr;
  const CUlaunchAttribute* attributes = nullptr;
  unsigned attribute_count = 0;
  bool cooperative = false;
  const char* api = "";
};

namespace detail {
// cuLaunchKernel and cuLaunchCooperativeKernel name their geometry fields alike.
template <typename Params>
void classic_launch(const Params& p, DriverLaunch& l) {
  l.handle = p.f;
  l.grid = {p.gridDimX, p.gridDimY, p.gridDimZ};
  l.block = {p.blockDimX, p.blockDimY, p.blockDimZ};
  l.shared_bytes = p.sharedMemBytes;
  l.stream = p.hStream;
  l.kernel_params = p.kernelParams;
}
}  // namespace detail

// False for any other callback, and for a cuLaunchKernelEx without a configuration.
inline bool decode_driver_launch(CUpti_CallbackId cbid, const CUpti_CallbackData* cb, DriverLaunch& l) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      auto* p = static_cast<const cuLaunchKernel_params*>(cb->functionParams);
      detail::classic_launch(*p, l);
      l.extra = p->extra;
      l.api = "cuLaunchKernel";
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      detail::classic_launch(*static_cast<const cuLaunchCooperativeKernel_params*>(cb->functionParams), l);
      l.cooperative = true;
      l.api = "cuLaunchCooperativeKernel";
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      auto* p = static_cast<const cuLaunchKernelEx_params*>(cb->functionParams);
      if (!p->config) return false;
      l.handle = p->f;
      l.grid = {p->config->gridDimX, p->config->gridDimY, p->config->gridDimZ};
      l.block = {p->config->blockDimX, p->config->blockDimY, p->config->blockDimZ};
      l.shared_bytes = p->config->sharedMemBytes;
      l.stream = p->config->hStream;
      l.attributes = p->config->attrs;
      l.attribute_count = p->config->numAttrs;
      l.kernel_params = p->kernelParams;
      l.extra = p->extra;
      l.api = "cuLaunchKernelEx";
      return true;
    }
    default: return false;
  }
}

}  // namespace rpl::collectors
