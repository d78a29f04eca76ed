#include "optimize/gpu_stub_headers.hpp"

namespace rpl::optimize {
namespace {

constexpr const char* kPrelude = R"RPL(#pragma once
#define __global__ __attribute__((annotate("rpl_global")))
#define __device__ __attribute__((annotate("rpl_device")))
#define __host__ __attribute__((annotate("rpl_host")))
#define __shared__ __attribute__((annotate("rpl_shared")))
#define __constant__ __attribute__((annotate("rpl_constant")))
#define __managed__ __attribute__((annotate("rpl_managed")))
#define __launch_bounds__(...) __attribute__((annotate("rpl_launch_bounds(" #__VA_ARGS__ ")")))
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __align__(n) alignas(n)
#define __CUDA_ARCH__ 900
// What nvcc/hipcc make visible without an include, from the compiler's own predefined macros: the parse must
// not depend on a clang resource directory being installed (the GPU machine has none for our libclang).
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef __INT8_TYPE__ int8_t; typedef __INT16_TYPE__ int16_t; typedef __INT32_TYPE__ int32_t; typedef __INT64_TYPE__ int64_t;
typedef __UINT8_TYPE__ uint8_t; typedef __UINT16_TYPE__ uint16_t; typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t; typedef __UINTPTR_TYPE__ uintptr_t; typedef __INTPTR_TYPE__ intptr_t;
#define RPL_VEC(T, N) struct N##1 { T x; }; struct N##2 { T x, y; }; struct N##3 { T x, y, z; }; \
  struct N##4 { T x, y, z, w; }; \
  template <class... A> N##1 make_##N##1(A...); template <class... A> N##2 make_##N##2(A...); \
  template <class... A> N##3 make_##N##3(A...); template <class... A> N##4 make_##N##4(A...);
RPL_VEC(float, float) RPL_VEC(double, double) RPL_VEC(int, int) RPL_VEC(unsigned, uint) RPL_VEC(char, char)
RPL_VEC(unsigned char, uchar) RPL_VEC(short, short) RPL_VEC(unsigned short, ushort) RPL_VEC(long long, longlong)
RPL_VEC(unsigned long long, ulonglong) RPL_VEC(long, long) RPL_VEC(unsigned long, ulong)
#undef RPL_VEC
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
  dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
extern const uint3 threadIdx;
extern const uint3 blockIdx;
extern const dim3 blockDim;
extern const dim3 gridDim;
extern const int warpSize;
struct __half { unsigned short x; __half() = default; __half(float); __half(double); __half(int); operator float() const; };
struct __half2 { __half x, y; __half2() = default; __half2(__half a, __half b) : x(a), y(b) {} };
struct __nv_bfloat16 { unsigned short x; __nv_bfloat16() = default; __nv_bfloat16(float); operator float() const; };
struct __nv_bfloat162 { __nv_bfloat16 x, y; __nv_bfloat162() = default;
  __nv_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) : x(a), y(b) {} };
typedef __nv_bfloat162 nv_bfloat162; typedef __nv_bfloat16 nv_bfloat16;
typedef __half half;
typedef __half2 half2;
typedef __nv_bfloat16 hip_bfloat16;
#define RPL_VOID(name) template <class... A> void name(A&&...);
#define RPL_FN(name) template <class... A> double name(A&&...);
RPL_VOID(__syncthreads) RPL_VOID(__syncwarp) RPL_VOID(__threadfence) RPL_VOID(__threadfence_block)
RPL_VOID(__threadfence_system) RPL_VOID(__trap) RPL_VOID(__nanosleep) RPL_VOID(__prefetch_global_l2)
RPL_FN(__syncthreads_count) RPL_FN(__syncthreads_and) RPL_FN(__syncthreads_or)
// Loads, atomics and shuffles return the type they are given (float4, int4, half2, ... included): the
// toolkit has an overload per type.
#define RPL_LOAD(name) template <class T> T name(const T*);
RPL_LOAD(__ldg) RPL_LOAD(__ldcg) RPL_LOAD(__ldca) RPL_LOAD(__ldcs) RPL_LOAD(__ldlu) RPL_LOAD(__ldcv)
#define RPL_ATOMIC(name) template <class T, class... A> T name(T*, A&&...);
RPL_ATOMIC(atomicAdd) RPL_ATOMIC(atomicSub) RPL_ATOMIC(atomicMax) RPL_ATOMIC(atomicMin) RPL_ATOMIC(atomicExch)
RPL_ATOMIC(atomicCAS) RPL_ATOMIC(atomicAnd) RPL_ATOMIC(atomicOr) RPL_ATOMIC(atomicXor) RPL_ATOMIC(atomicInc)
RPL_ATOMIC(atomicDec) RPL_ATOMIC(atomicAdd_block) RPL_ATOMIC(atomicAdd_system) RPL_ATOMIC(atomicMax_block)
RPL_ATOMIC(atomicMin_block) RPL_ATOMIC(atomicExch_block) RPL_ATOMIC(atomicCAS_block)
#define RPL_SHFL_SYNC(name) template <class T, class... A> T name(unsigned, T, A&&...);
RPL_SHFL_SYNC(__shfl_sync) RPL_SHFL_SYNC(__shfl_up_sync) RPL_SHFL_SYNC(__shfl_down_sync) RPL_SHFL_SYNC(__shfl_xor_sync)
#define RPL_SHFL(name) template <class T, class... A> T name(T, A&&...);
RPL_SHFL(__shfl) RPL_SHFL(__shfl_up) RPL_SHFL(__shfl_down) RPL_SHFL(__shfl_xor)
#undef RPL_LOAD
#undef RPL_ATOMIC
#undef RPL_SHFL_SYNC
#undef RPL_SHFL
RPL_FN(__ballot_sync) RPL_FN(__any_sync) RPL_FN(__all_sync) RPL_FN(__activemask) RPL_FN(__ballot)
RPL_FN(__reduce_add_sync) RPL_FN(__reduce_max_sync) RPL_FN(__reduce_min_sync) RPL_FN(__match_any_sync)
RPL_FN(__popc) RPL_FN(__popcll) RPL_FN(__clz) RPL_FN(__clzll) RPL_FN(__ffs) RPL_FN(__ffsll) RPL_FN(__brev)
RPL_FN(__mul24) RPL_FN(__umul24) RPL_FN(__mulhi) RPL_FN(__umulhi) RPL_FN(__sad) RPL_FN(__usad)
RPL_FN(__expf) RPL_FN(__logf) RPL_FN(__sinf) RPL_FN(__cosf) RPL_FN(__powf) RPL_FN(__fdividef) RPL_FN(__frcp_rn)
RPL_FN(__fsqrt_rn) RPL_FN(__saturatef) RPL_FN(__exp10f) RPL_FN(__log2f) RPL_FN(__tanf)
RPL_FN(min) RPL_FN(max) RPL_FN(umin) RPL_FN(umax) RPL_FN(llmin) RPL_FN(llmax) RPL_FN(fminf) RPL_FN(fmaxf) RPL_FN(fmin)
RPL_FN(fmax) RPL_FN(abs) RPL_FN(fabsf) RPL_FN(fabs) RPL_FN(sqrtf) RPL_FN(sqrt) RPL_FN(rsqrtf) RPL_FN(rsqrt) RPL_FN(expf)
RPL_FN(exp) RPL_FN(exp2f) RPL_FN(logf) RPL_FN(log) RPL_FN(log2f) RPL_FN(powf) RPL_FN(pow) RPL_FN(tanhf) RPL_FN(tanh)
RPL_FN(sinf) RPL_FN(cosf) RPL_FN(floorf) RPL_FN(ceilf) RPL_FN(roundf) RPL_FN(truncf) RPL_FN(fmaf) RPL_FN(fma)
RPL_FN(erff) RPL_FN(erf) RPL_FN(isnan) RPL_FN(isinf) RPL_FN(isfinite) RPL_FN(__float2int_rn) RPL_FN(__int2float_rn)
RPL_FN(__float2half) RPL_FN(__half2float) RPL_FN(__float2bfloat16) RPL_FN(__bfloat162float)
RPL_FN(__fadd_rn) RPL_FN(__fmul_rn) RPL_FN(__fmaf_rn) RPL_FN(__dadd_rn) RPL_FN(__dmul_rn) RPL_FN(__fma_rn)
RPL_FN(rsqrtf) RPL_FN(rsqrt) RPL_FN(rcbrtf) RPL_FN(exp10f) RPL_FN(sincosf) RPL_FN(sincospif) RPL_FN(normf)
RPL_VOID(__stcg) RPL_VOID(__stcs) RPL_VOID(__stwb) RPL_VOID(__stwt)
RPL_FN(__float2half) RPL_FN(__half2float) RPL_FN(__float2half_rn) RPL_FN(__low2float) RPL_FN(__high2float)
#define RPL_SAME(name) template <class T, class... A> T name(T, A&&...);
RPL_SAME(__hadd) RPL_SAME(__hmul) RPL_SAME(__hfma) RPL_SAME(__hsub) RPL_SAME(__hadd2) RPL_SAME(__hmul2) RPL_SAME(__hfma2)
RPL_SAME(__hsub2) RPL_SAME(__hmax) RPL_SAME(__hmin) RPL_SAME(__hmax2) RPL_SAME(__hmin2) RPL_SAME(__habs2) RPL_SAME(__hneg2)
RPL_SAME(__h2div) RPL_SAME(__hdiv)
// half and bfloat16 math (cuda_fp16.h, cuda_bf16.h: one overload per type, the same names)
RPL_SAME(hexp) RPL_SAME(hexp2) RPL_SAME(hexp10) RPL_SAME(hlog) RPL_SAME(hlog2) RPL_SAME(hlog10) RPL_SAME(hsqrt)
RPL_SAME(hrsqrt) RPL_SAME(hrcp) RPL_SAME(hsin) RPL_SAME(hcos) RPL_SAME(htanh) RPL_SAME(htanh_approx) RPL_SAME(hceil)
RPL_SAME(hfloor) RPL_SAME(hrint) RPL_SAME(htrunc) RPL_SAME(h2exp) RPL_SAME(h2exp2) RPL_SAME(h2exp10) RPL_SAME(h2log)
RPL_SAME(h2log2) RPL_SAME(h2log10) RPL_SAME(h2sqrt) RPL_SAME(h2rsqrt) RPL_SAME(h2rcp) RPL_SAME(h2sin) RPL_SAME(h2cos)
RPL_SAME(h2tanh) RPL_SAME(h2tanh_approx) RPL_SAME(h2ceil) RPL_SAME(h2floor) RPL_SAME(h2rint) RPL_SAME(h2trunc)
RPL_SAME(__hneg) RPL_SAME(__habs) RPL_SAME(__hmax_nan) RPL_SAME(__hmin_nan) RPL_SAME(__hmax2_nan) RPL_SAME(__hmin2_nan)
RPL_SAME(__hadd_sat) RPL_SAME(__hsub_sat) RPL_SAME(__hmul_sat) RPL_SAME(__hfma_sat) RPL_SAME(__hfma_relu)
RPL_SAME(__hadd2_sat) RPL_SAME(__hsub2_sat) RPL_SAME(__hmul2_sat) RPL_SAME(__hfma2_sat) RPL_SAME(__hfma2_relu)
RPL_SAME(__hcmadd) RPL_SAME(__lowhigh2highlow) RPL_SAME(__lows2half2) RPL_SAME(__highs2half2)
#undef RPL_SAME
RPL_FN(__heq) RPL_FN(__hne) RPL_FN(__hlt) RPL_FN(__hle) RPL_FN(__hgt) RPL_FN(__hge) RPL_FN(__hisnan) RPL_FN(__hisinf)
RPL_FN(__heq2) RPL_FN(__hne2) RPL_FN(__hlt2) RPL_FN(__hle2) RPL_FN(__hgt2) RPL_FN(__hge2) RPL_FN(__hbeq2)
RPL_FN(__hbne2) RPL_FN(__hblt2) RPL_FN(__hble2) RPL_FN(__hbgt2) RPL_FN(__hbge2) RPL_FN(__half_as_short)
RPL_FN(__half_as_ushort) RPL_FN(__short_as_half) RPL_FN(__ushort_as_half) RPL_FN(__bfloat16_as_short)
RPL_FN(__bfloat16_as_ushort) RPL_FN(__short_as_bfloat16) RPL_FN(__ushort_as_bfloat16)
template <class... A> __half2 __floats2half2_rn(A&&...); template <class... A> __half2 __float2half2_rn(A&&...);
template <class... A> __half2 __halves2half2(A&&...); template <class... A> float2 __half22float2(A&&...);
template <class... A> __nv_bfloat162 __floats2bfloat162_rn(A&&...); template <class... A> float2 __bfloat1622float2(A&&...);
template <class... A> __half __float2half_rz(A&&...); template <class... A> __nv_bfloat16 __float2bfloat16_rn(A&&...);
template <class... A> __nv_bfloat162 __float22bfloat162_rn(A&&...); template <class... A> __half2 __float22half2_rn(A&&...);
template <class... A> __nv_bfloat162 __bfloat162bfloat162(A&&...); template <class... A> __nv_bfloat162 __halves2bfloat162(A&&...);
template <class... A> __nv_bfloat16 __low2bfloat16(A&&...); template <class... A> __nv_bfloat16 __high2bfloat16(A&&...);
template <class... A> __half __low2half(A&&...); template <class... A> __half __high2half(A&&...);
template <class... A> __nv_bfloat16 __float2bfloat16_rz(A&&...); template <class... A> __half2 __half2half2(A&&...);
RPL_FN(__float2bfloat16) RPL_FN(__bfloat162float) RPL_FN(__float_as_int) RPL_FN(__int_as_float)
RPL_FN(__float_as_uint) RPL_FN(__uint_as_float) RPL_FN(__double_as_longlong) RPL_FN(__longlong_as_double)
RPL_FN(__float2int_rn) RPL_FN(__float2int_rz) RPL_FN(__float2uint_rn) RPL_FN(__int2float_rn) RPL_FN(__double2float_rn)
RPL_FN(clock) RPL_FN(clock64) RPL_FN(__clock64) RPL_FN(__globaltimer) RPL_FN(wall_clock64) RPL_FN(__builtin_readcyclecounter)
RPL_FN(__cvta_generic_to_shared) RPL_FN(__isShared) RPL_FN(__isGlobal)
#undef RPL_VOID
#undef RPL_FN
)RPL";

constexpr const char* kRuntime = R"RPL(#pragma once
#include "rpl_gpu_prelude.h"
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#define RPL_RUNTIME(P)                                                                                           \
  enum P##Error_t { P##Success = 0, P##ErrorInvalidValue = 1, P##ErrorMemoryAllocation = 2, P##ErrorNotReady = 600 }; \
  typedef P##Error_t P##Error;                                                                                  \
  enum P##MemcpyKind { P##MemcpyHostToHost, P##MemcpyHostToDevice, P##MemcpyDeviceToHost, P##MemcpyDeviceToDevice, \
                       P##MemcpyDefault };                                                                      \
  typedef struct P##_stream_st* P##Stream_t;                                                                    \
  typedef struct P##_event_st* P##Event_t;                                                                      \
  typedef struct P##_graph_st* P##Graph_t;                                                                      \
  typedef struct P##_graphexec_st* P##GraphExec_t;                                                              \
  struct P##DeviceProp {                                                                                         \
    char name[256]; size_t totalGlobalMem, sharedMemPerBlock, sharedMemPerMultiprocessor, sharedMemPerBlockOptin;  \
    int regsPerBlock, warpSize, maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate, major, minor;   \
    int multiProcessorCount, memoryClockRate, memoryBusWidth, l2CacheSize, maxThreadsPerMultiProcessor;          \
    int regsPerMultiprocessor, concurrentKernels, gcnArch; char gcnArchName[256];                                \
  };                                                                                                            \
  inline const char* P##GetErrorString(P##Error_t) { return ""; }                                               \
  inline const char* P##GetErrorName(P##Error_t) { return ""; }
RPL_RUNTIME(cuda)
RPL_RUNTIME(hip)
#undef RPL_RUNTIME
#define cudaStreamNonBlocking 1
#define hipStreamNonBlocking 1
#define cudaStreamDefault 0
#define hipStreamDefault 0
#define cudaEventDefault 0
#define hipEventDefault 0
#define cudaEventDisableTiming 2
#define hipEventDisableTiming 2
#define cudaHostAllocDefault 0
#define hipHostMallocDefault 0
#define RPL_API(name) template <class... A> cudaError_t cuda##name(A&&...); template <class... A> hipError_t hip##name(A&&...);
RPL_API(Malloc) RPL_API(Free) RPL_API(Memcpy) RPL_API(MemcpyAsync) RPL_API(Memset) RPL_API(MemsetAsync)
RPL_API(MallocManaged) RPL_API(MallocHost) RPL_API(FreeHost) RPL_API(HostAlloc) RPL_API(HostMalloc) RPL_API(HostFree)
RPL_API(MallocAsync) RPL_API(FreeAsync) RPL_API(MallocPitch) RPL_API(Memcpy2D) RPL_API(MemcpyToSymbol)
RPL_API(MemcpyFromSymbol) RPL_API(MemcpyPeer) RPL_API(MemPrefetchAsync)
RPL_API(DeviceSynchronize) RPL_API(DeviceReset) RPL_API(GetLastError) RPL_API(PeekAtLastError) RPL_API(SetDevice)
RPL_API(GetDevice) RPL_API(GetDeviceCount) RPL_API(GetDeviceProperties) RPL_API(DeviceGetAttribute) RPL_API(MemGetInfo)
RPL_API(StreamCreate) RPL_API(StreamCreateWithFlags) RPL_API(StreamCreateWithPriority) RPL_API(StreamDestroy)
RPL_API(StreamSynchronize) RPL_API(StreamWaitEvent) RPL_API(StreamQuery) RPL_API(StreamBeginCapture)
RPL_API(StreamEndCapture) RPL_API(GraphInstantiate) RPL_API(GraphLaunch) RPL_API(GraphDestroy) RPL_API(GraphExecDestroy)
RPL_API(EventCreate) RPL_API(EventCreateWithFlags) RPL_API(EventRecord) RPL_API(EventSynchronize)
RPL_API(EventElapsedTime) RPL_API(EventDestroy) RPL_API(EventQuery) RPL_API(FuncSetAttribute) RPL_API(FuncGetAttributes)
RPL_API(LaunchKernel) RPL_API(LaunchCooperativeKernel) RPL_API(OccupancyMaxActiveBlocksPerMultiprocessor)
RPL_API(OccupancyMaxPotentialBlockSize) RPL_API(DeviceEnablePeerAccess) RPL_API(DriverGetVersion) RPL_API(RuntimeGetVersion)
RPL_API(ProfilerStart) RPL_API(ProfilerStop)
#undef RPL_API
template <class F, class... A> void hipLaunchKernelGGL(F&&, A&&...);
#define HIP_KERNEL_NAME(...) __VA_ARGS__
)RPL";

constexpr const char* kForward = R"RPL(#pragma once
#include "cuda_runtime.h"
)RPL";

// The namespace alone (`namespace cg = cooperative_groups;` is then a declaration the parser reads; what the kernel
// calls in it stays unknown, and the kernel is judged on its code object).
constexpr const char* kCooperativeGroups = R"RPL(#pragma once
#include "cuda_runtime.h"
namespace cooperative_groups {}
)RPL";

// The same for the tensor-core API (`namespace wmma = nvcuda::wmma;`, `using namespace nvcuda;`).
constexpr const char* kMma = R"RPL(#pragma once
#include "cuda_runtime.h"
namespace nvcuda { namespace wmma {} }
)RPL";

}  // namespace

const std::vector<std::pair<std::string, std::string>>& gpu_stub_headers() {
  static const std::vector<std::pair<std::string, std::string>> headers = {
      {kStubPrelude, kPrelude},
      {"cuda_runtime.h", kRuntime},
      {"cuda_runtime_api.h", kForward},
      {"cuda.h", kForward},
      {"cuda_fp16.h", kForward},
      {"cuda_bf16.h", kForward},
      {"device_launch_parameters.h", kForward},
      {"hip/hip_runtime.h", kForward},
      {"hip/hip_runtime_api.h", kForward},
      {"hip/hip_fp16.h", kForward},
      {"hip/hip_bf16.h", kForward},
      {"cooperative_groups.h", kCooperativeGroups},
      {"cooperative_groups/reduce.h", kCooperativeGroups},
      {"cooperative_groups/scan.h", kCooperativeGroups},
      {"cooperative_groups/memcpy_async.h", kCooperativeGroups},
      {"hip/hip_cooperative_groups.h", kCooperativeGroups},
      {"mma.h", kMma},
  };
  return headers;
}

}  // namespace rpl::optimize
