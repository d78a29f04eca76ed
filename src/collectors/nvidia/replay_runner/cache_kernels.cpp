#include "collectors/nvidia/replay_runner/cache_kernels.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <string>

#include "collectors/nvidia/cuda_driver/cu_error.hpp"
#include "support/errors.hpp"

namespace rpl::cuda_capture {
namespace {

constexpr uint64_t kScratchBytes = 64 << 10;
// Loads per thread in the evict kernel: 2 instructions of 16 bytes each, 256 KiB of code, more than a
// multiprocessor's instruction caches hold.
constexpr int kEvictLoads = 8192;

void check(CUresult r, const std::string& what) {
  if (r != CUDA_SUCCESS) throw Error(ExitCode::ProfilerFailed, fmt::format("{}: {}", what, cu_error(r)));
}

// Every thread reads bytes at 32-byte steps (one per L2 sector) in a grid-stride loop; the xor of what it read
// is stored only if it equals a constant, so the loads cannot be removed.
constexpr const char* kTouchPtx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry rpl_touch(.param .u64 base, .param .u64 sectors, .param .u64 sink)
{
  .reg .pred %p<3>;
  .reg .b16 %h<2>;
  .reg .b32 %r<9>;
  .reg .b64 %rd<9>;
  ld.param.u64 %rd1, [base];
  ld.param.u64 %rd2, [sectors];
  ld.param.u64 %rd3, [sink];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  cvt.u64.u32 %rd4, %r4;
  mov.u32 %r5, %nctaid.x;
  mul.lo.u32 %r6, %r5, %r2;
  cvt.u64.u32 %rd5, %r6;
  mov.u32 %r7, 0;
LOOP:
  setp.ge.u64 %p1, %rd4, %rd2;
  @%p1 bra DONE;
  shl.b64 %rd6, %rd4, 5;
  add.u64 %rd7, %rd1, %rd6;
  ld.global.cg.u8 %h1, [%rd7];
  cvt.u32.u16 %r8, %h1;
  xor.b32 %r7, %r7, %r8;
  add.u64 %rd4, %rd4, %rd5;
  bra LOOP;
DONE:
  setp.ne.u32 %p2, %r7, 2654435769;
  @%p2 bra END;
  st.global.u32 [%rd3], %r7;
END:
  ret;
}
)";

std::string evict_ptx() {
  std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry rpl_evict_code(.param .u64 buf, .param .u64 sink)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [buf];
  ld.param.u64 %rd2, [sink];
  mov.u32 %r1, 0;
)";
  for (int k = 0; k < kEvictLoads; ++k)
    ptx += fmt::format("  ld.global.cg.u32 %r2, [%rd1+{}];\n  xor.b32 %r1, %r1, %r2;\n", (k * 4) % kScratchBytes);
  ptx += R"(  setp.ne.u32 %p1, %r1, 2654435769;
  @%p1 bra END;
  st.global.u32 [%rd2], %r1;
END:
  ret;
}
)";
  return ptx;
}

CUfunction load(const std::string& ptx, const char* name, CUmodule& module) {
  check(cuModuleLoadData(&module, ptx.c_str()), fmt::format("compiling the replay runner's {} kernel (PTX)", name));
  CUfunction f = nullptr;
  check(cuModuleGetFunction(&f, module, name), fmt::format("cuModuleGetFunction({})", name));
  return f;
}

}  // namespace

CacheKernels::~CacheKernels() {
  if (scratch_) cuMemFree(scratch_);
  if (touch_module_) cuModuleUnload(touch_module_);
  if (evict_module_) cuModuleUnload(evict_module_);
}

void CacheKernels::load_touch() {
  if (touch_) return;
  touch_ = load(kTouchPtx, "rpl_touch", touch_module_);
  check(cuDeviceGetAttribute(&multiprocessors_, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device_), "multiprocessor count");
  if (!scratch_) {
    check(cuMemAlloc(&scratch_, kScratchBytes), "allocating the cache kernels' scratch memory");
    check(cuMemsetD8(scratch_, 0, kScratchBytes), "clearing the cache kernels' scratch memory");
  }
}

void CacheKernels::load_evict() {
  if (evict_) return;
  load_touch();
  evict_ = load(evict_ptx(), "rpl_evict_code", evict_module_);
}

namespace {

// Runs `load`; false with the reason and what the replay does without the kernel when it throws.
template <typename Load>
bool loads(Load load, const char* without, std::string& why) {
  try {
    load();
    return true;
  } catch (const Error& e) {
    why = fmt::format("{}; {}", e.what(), without);
    return false;
  }
}

}  // namespace

bool CacheKernels::touch_ready(std::string& why) {
  return loads([this] { load_touch(); }, "warm launches go without reading their inputs into L2", why);
}

bool CacheKernels::evict_ready(std::string& why) {
  return loads([this] { load_evict(); }, "cold launches flush L2 only", why);
}

void CacheKernels::touch(CUdeviceptr address, uint64_t bytes, CUstream stream) {
  if (bytes == 0) return;
  load_touch();
  CUdeviceptr base = address & ~CUdeviceptr(31);  // the sector holding the first byte
  uint64_t sectors = (address + bytes - base + 31) / 32;
  CUdeviceptr sink = scratch_;
  const unsigned threads = 256;
  const uint64_t blocks = std::clamp<uint64_t>((sectors + threads - 1) / threads, 1, uint64_t(multiprocessors_) * 8);
  void* args[] = {&base, &sectors, &sink};
  check(cuLaunchKernel(touch_, unsigned(blocks), 1, 1, threads, 1, 1, 0, stream, args, nullptr),
        "launching the replay runner's L2 read-in kernel");
}

void CacheKernels::evict_code(CUstream stream) {
  load_evict();
  CUdeviceptr buf = scratch_, sink = scratch_;
  void* args[] = {&buf, &sink};
  check(cuLaunchKernel(evict_, unsigned(multiprocessors_), 1, 1, 32, 1, 1, 0, stream, args, nullptr),
        "launching the replay runner's instruction-cache eviction kernel");
}

}  // namespace rpl::cuda_capture
