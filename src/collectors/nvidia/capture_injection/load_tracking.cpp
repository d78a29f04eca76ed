#include "collectors/nvidia/capture_injection/load_tracking.hpp"

#include <dlfcn.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "collectors/nvidia/cuda_fatbin.hpp"

namespace rpl::cuda_capture {
namespace {

constexpr std::size_t kMaxCopiedImage = std::size_t{512} << 20;

// The image behind a loader's pointer: its kind and size from its own header; kept as a pointer where it
// lies inside a loaded object file (a fat binary compiled into a library stays mapped), copied otherwise (the
// caller may free its buffer after the call, as Triton does).
collectors::nvidia::CodeLoad describe_image(const char* api, const void* image) try {
  collectors::nvidia::CodeLoad load;
  load.api = api;
  if (!image) return load;
  auto* p = static_cast<const std::byte*>(image);
  uint32_t magic = 0;
  std::memcpy(&magic, p, 4);
  if (magic == 0x466243B1u) {  // the runtime's __fatBinC_Wrapper_t: the fat binary is behind its data pointer
    const void* data = nullptr;
    std::memcpy(&data, p + 8, sizeof data);
    load.api += " (fatbin wrapper)";
    p = static_cast<const std::byte*>(data);
    if (!p) return load;
  }
  std::size_t head = 16;
  if (collectors::nvidia::classify_code_image({p, head}) == collectors::nvidia::CodeImageKind::Ptx) head = strnlen(reinterpret_cast<const char*>(p), 64);
  auto kind = collectors::nvidia::classify_code_image({p, head});
  load.image_kind = collectors::nvidia::code_image_kind_name(kind);
  auto size = collectors::nvidia::code_image_size(p, std::size_t{1} << 40);
  if (!size) return load;
  load.image_bytes = *size;
  Dl_info info{};
  if (dladdr(p, &info) && info.dli_fname) load.static_image = p;
  else if (*size <= kMaxCopiedImage) load.image.assign(p, p + *size);
  return load;
} catch (const std::exception& e) {  // never through CUPTI's C callback
  collectors::nvidia::CodeLoad load;
  load.api = api;
  load.image_kind = std::string("unreadable (") + e.what() + ")";
  return load;
}

}  // namespace

const std::vector<CUpti_CallbackId>& load_callback_ids() {
  static const std::vector<CUpti_CallbackId> ids = {
      CUPTI_DRIVER_TRACE_CBID_cuModuleLoad,        CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData,
      CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx,  CUPTI_DRIVER_TRACE_CBID_cuModuleLoadFatBinary,
      CUPTI_DRIVER_TRACE_CBID_cuModuleUnload,      CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData,
      CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadFromFile, CUPTI_DRIVER_TRACE_CBID_cuLibraryUnload,
      CUPTI_DRIVER_TRACE_CBID_cuLibraryGetModule,  CUPTI_DRIVER_TRACE_CBID_cuLibraryGetKernel,
      CUPTI_DRIVER_TRACE_CBID_cuKernelGetFunction};
  return ids;
}

bool on_load_exit(CUpti_CallbackId cbid, const CUpti_CallbackData* cb, collectors::nvidia::CodeLoadBook& book) {
  const void* params = cb->functionParams;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoad: {
      auto* p = static_cast<const cuModuleLoad_params*>(params);
      collectors::nvidia::CodeLoad load;
      load.api = "cuModuleLoad";
      load.image_kind = "file";
      load.file = p->fname ? p->fname : "";
      book.module_loaded(*p->module, std::move(load));
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData: {
      auto* p = static_cast<const cuModuleLoadData_params*>(params);
      book.module_loaded(*p->module, describe_image("cuModuleLoadData", p->image));
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx: {
      auto* p = static_cast<const cuModuleLoadDataEx_params*>(params);
      book.module_loaded(*p->module, describe_image("cuModuleLoadDataEx", p->image));
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadFatBinary: {
      auto* p = static_cast<const cuModuleLoadFatBinary_params*>(params);
      book.module_loaded(*p->module, describe_image("cuModuleLoadFatBinary", p->fatCubin));
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuModuleUnload:
      book.module_unloaded(static_cast<const cuModuleUnload_params*>(params)->hmod);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData: {
      auto* p = static_cast<const cuLibraryLoadData_params*>(params);
      book.library_loaded(*p->library, describe_image("cuLibraryLoadData", p->code));
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadFromFile: {
      auto* p = static_cast<const cuLibraryLoadFromFile_params*>(params);
      collectors::nvidia::CodeLoad load;
      load.api = "cuLibraryLoadFromFile";
      load.image_kind = "file";
      load.file = p->fileName ? p->fileName : "";
      book.library_loaded(*p->library, std::move(load));
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLibraryUnload:
      book.library_unloaded(static_cast<const cuLibraryUnload_params*>(params)->library);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLibraryGetModule: {
      auto* p = static_cast<const cuLibraryGetModule_params*>(params);
      book.library_owns(p->library, *p->pMod);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLibraryGetKernel: {
      auto* p = static_cast<const cuLibraryGetKernel_params*>(params);
      book.library_owns(p->library, *p->pKernel);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuKernelGetFunction: {
      auto* p = static_cast<const cuKernelGetFunction_params*>(params);
      CUmodule module = nullptr;
      cuFuncGetModule(&module, *p->pFunc);
      book.kernel_function(p->kernel, *p->pFunc, module);
      return true;
    }
    default: return false;
  }
}

uint32_t current_compute_capability(bool or_device0) {
  CUdevice device = 0;
  int major = 0, minor = 0;
  if (cuCtxGetDevice(&device) != CUDA_SUCCESS && (!or_device0 || cuDeviceGet(&device, 0) != CUDA_SUCCESS)) return 0;
  if (cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) != CUDA_SUCCESS ||
      cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) != CUDA_SUCCESS)
    return 0;
  return uint32_t(major * 10 + minor);
}

std::vector<std::byte> jit_ptx_to_cubin(std::span<const std::byte> ptx, std::string* error) {
  std::string text(reinterpret_cast<const char*>(ptx.data()), ptx.size());  // NUL-terminated by std::string
  CUlinkState link = nullptr;
  char log[4096] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log, reinterpret_cast<void*>(std::uintptr_t(sizeof log))};
  std::vector<std::byte> out;
  if (cuLinkCreate(2, options, values, &link) != CUDA_SUCCESS) {
    if (error) *error = "cuLinkCreate failed";
    return out;
  }
  void* cubin = nullptr;
  std::size_t size = 0;
  CUresult r = cuLinkAddData(link, CU_JIT_INPUT_PTX, text.data(), text.size() + 1, "captured.ptx", 0, nullptr, nullptr);
  if (r == CUDA_SUCCESS) r = cuLinkComplete(link, &cubin, &size);
  if (r == CUDA_SUCCESS && cubin && size) {
    auto* p = static_cast<const std::byte*>(cubin);
    out.assign(p, p + size);  // owned by the link state: copied before it is destroyed
  } else if (error) {
    const char* name = nullptr;
    cuGetErrorName(r, &name);
    *error = std::string("JIT-compiling its PTX failed: ") + (name ? name : "unknown error") + (log[0] ? std::string(": ") + log : "");
  }
  cuLinkDestroy(link);
  return out;
}

std::vector<std::byte> load_image_bytes(const collectors::nvidia::CodeLoad& load, std::string* error) {
  auto bytes = load.bytes();
  if (!bytes.empty()) return {bytes.begin(), bytes.end()};
  if (!load.file.empty()) {
    std::ifstream in(load.file, std::ios::binary);
    if (!in) {
      if (error) *error = "its file " + load.file + " can no longer be read";
      return {};
    }
    std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> out(chars.size());
    std::memcpy(out.data(), chars.data(), chars.size());
    return out;
  }
  if (error)
    *error = load.image_kind.empty() ? "its image could not be identified"
                                      : "its " + load.image_kind + " image was not kept (too large, or of unknown size)";
  return {};
}

}  // namespace rpl::cuda_capture
