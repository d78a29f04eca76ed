#pragma once
// Every driver call that puts code on the GPU (cuModuleLoad*, cuLibraryLoad* -- which cudaLibraryLoad* and the
// CUDA 12+ runtime's registered fat binaries go through --, cuModuleLoadFatBinary) and the calls that tie
// kernels and modules to their library (cuLibraryGetModule, cuLibraryGetKernel, cuKernelGetFunction), recorded
// at API exit so that a kernel's module can be traced to the call and image that loaded it.
#include <cupti.h>

#include <vector>

#include "collectors/nvidia/cuda_code_index.hpp"

namespace rpl::cuda_capture {

const std::vector<CUpti_CallbackId>& load_callback_ids();

// At API exit of a successful call among load_callback_ids(); returns false for other ids.
bool on_load_exit(CUpti_CallbackId cbid, const CUpti_CallbackData* cb, collectors::nvidia::CodeLoadBook& book);

// The image bytes of a load: the recorded copy or mapping, else the file it came from ("" error when none).
std::vector<std::byte> load_image_bytes(const collectors::nvidia::CodeLoad& load, std::string* error);

// The compute capability (major*10+minor) of the current context's device, else (when `or_device0`) of device
// 0; 0 when the driver cannot say.
uint32_t current_compute_capability(bool or_device0);

// PTX JIT-compiled for the current context's device with the driver's own linker (cuLinkCreate/AddData/
// Complete, default options): the cubin the driver builds when it loads that PTX. Empty, with `error`, on failure.
std::vector<std::byte> jit_ptx_to_cubin(std::span<const std::byte> ptx, std::string* error);

}  // namespace rpl::cuda_capture
