#pragma once
// The CUDA driver's kernel-launch entry points, as CUPTI driver-API callback ids: what the injection
// libraries subscribe to when they act at each launch. Header only; included by injection libraries, which
// compile against CUPTI (never by rpl_collectors).
#include <cupti.h>

namespace rpl::collectors::cupti {

inline constexpr CUpti_CallbackId kKernelLaunchCallbacks[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz};

inline bool is_kernel_launch(CUpti_CallbackId id) {
  for (CUpti_CallbackId launch : kKernelLaunchCallbacks)
    if (id == launch) return true;
  return false;
}

}  // namespace rpl::collectors::cupti
