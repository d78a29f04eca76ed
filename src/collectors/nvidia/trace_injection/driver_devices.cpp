#include "collectors/nvidia/trace_injection/driver_devices.hpp"

#include <cuda.h>
#include <dlfcn.h>

#include <cstring>

namespace rpl::cuda {

std::vector<spill::DeviceRecord> query_devices_from_driver(RecordTranslator& translator) {
  std::vector<spill::DeviceRecord> out;
  void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!lib) return out;
  auto get_count = reinterpret_cast<CUresult (*)(int*)>(dlsym(lib, "cuDeviceGetCount"));
  auto get_device = reinterpret_cast<CUresult (*)(CUdevice*, int)>(dlsym(lib, "cuDeviceGet"));
  auto get_attr = reinterpret_cast<CUresult (*)(int*, CUdevice_attribute, CUdevice)>(dlsym(lib, "cuDeviceGetAttribute"));
  auto get_name = reinterpret_cast<CUresult (*)(char*, int, CUdevice)>(dlsym(lib, "cuDeviceGetName"));
  auto total_mem = reinterpret_cast<CUresult (*)(size_t*, CUdevice)>(dlsym(lib, "cuDeviceTotalMem_v2"));
  int count = 0;
  if (!get_count || !get_device || !get_attr || !get_name || get_count(&count) != CUDA_SUCCESS) {
    dlclose(lib);
    return out;
  }
  for (int i = 0; i < count; ++i) {
    CUdevice dev;
    if (get_device(&dev, i) != CUDA_SUCCESS) continue;
    auto attr = [&](CUdevice_attribute a) {
      int v = 0;
      return get_attr(&v, a, dev) == CUDA_SUCCESS ? static_cast<uint32_t>(v) : 0u;
    };
    spill::DeviceRecord r;
    r.device_id = static_cast<uint32_t>(i);
    char name[256] = {};
    if (get_name(name, sizeof name - 1, dev) == CUDA_SUCCESS) r.name_id = translator.intern(name);
    size_t bytes = 0;
    if (total_mem && total_mem(&bytes, dev) == CUDA_SUCCESS) r.global_memory_bytes = bytes;
    r.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    r.compute_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    r.compute_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    r.warp_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    r.max_warps_per_sm = r.warp_size ? attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) / r.warp_size : 0;
    r.max_blocks_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    r.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    r.shared_bytes_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    r.shared_bytes_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    r.registers_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    r.registers_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    r.core_clock_khz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    r.l2_bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    r.memcpy_engines = attr(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
    // Peak bandwidth in KB/s: 2 transfers a clock (DDR) x bus width in bytes x memory clock in kHz.
    r.global_memory_bandwidth_kbps =
        2ull * (attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH) / 8) * attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    out.push_back(r);
  }
  dlclose(lib);
  return out;
}

}  // namespace rpl::cuda
