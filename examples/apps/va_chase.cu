// va_chase: the capture/replay testbed (CUDA only). Its results depend on virtual-address fidelity: `chase`
// follows linked lists through absolute device pointers spread over every kind of allocation the capture tracks
// (cudaMalloc, 1,200 small cudaMallocs, cudaMallocPitch, cudaMallocAsync from the stream-ordered pool, a VMM
// cuMemCreate + cuMemMap mapping, cudaMallocManaged) and over a __device__ table read by symbol; each thread's
// result mixes the values it met with the address where it stopped. `accumulate` adds into its output
// (out[i] += 3 * in[i] + 1, 32-bit wrap-around), so a stateful replay (--no-recopy) has a known result.
//   va_chase [--iters=5] [--threads=4096] [--steps=4096] [--nodes=262144] [--accum=16777216]
// Prints RPL_EXPECT lines, RPL_ACCUM out=<addr> in=<addr> n=<n> (for replay checks), RPL_RESULT; checks both
// kernels against the host (which knows every node's device address) and exits 1 on a wrong result.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "common/app_util.hpp"

struct Node {
  const Node* next;
  unsigned long long value;
};

__device__ unsigned long long g_salt[64];

#ifdef VA_CHASE_PERTURB  // a deliberately different kernel (replay --code-object must report a mismatch)
#define MIX(acc, v, s) ((acc) * 33u + ((v) ^ (s)))
#else
#define MIX(acc, v, s) ((acc) * 31u + ((v) ^ (s)))
#endif

__global__ void chase(const Node* const* heads, unsigned long long* out, int threads, int steps) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const Node* p = heads[t];
  unsigned long long acc = 0;
  for (int s = 0; s < steps; ++s) {
    acc = MIX(acc, p->value, g_salt[s & 63]);
    p = p->next;
  }
  out[t] = acc ^ reinterpret_cast<unsigned long long>(p);
}

__global__ void accumulate(unsigned* out, const unsigned* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += 3u * in[i] + 1u;
}

#ifndef VA_CHASE_KERNELS_ONLY
namespace {

#define CU_CHECK(expr)                                                                      \
  do {                                                                                      \
    CUresult rpl_r_ = (expr);                                                               \
    if (rpl_r_ != CUDA_SUCCESS) {                                                           \
      std::fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #expr, int(rpl_r_)); \
      std::exit(2);                                                                         \
    }                                                                                       \
  } while (0)

template <typename F>
F driver_entry(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  HIP_CHECK(cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q));
  if (!fn) {
    std::fprintf(stderr, "va_chase: no driver entry point %s\n", name);
    std::exit(2);
  }
  return reinterpret_cast<F>(fn);
}

// A VMM allocation: reserve, create, map, grant access (driver entry points, no -lcuda needed).
void* vmm_allocate(size_t& bytes) {
  auto granularity = driver_entry<decltype(&cuMemGetAllocationGranularity)>("cuMemGetAllocationGranularity");
  auto reserve = driver_entry<decltype(&cuMemAddressReserve)>("cuMemAddressReserve");
  auto create = driver_entry<decltype(&cuMemCreate)>("cuMemCreate");
  auto map = driver_entry<decltype(&cuMemMap)>("cuMemMap");
  auto set_access = driver_entry<decltype(&cuMemSetAccess)>("cuMemSetAccess");
  int device = 0;
  HIP_CHECK(cudaGetDevice(&device));
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  size_t g = 0;
  CU_CHECK(granularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  bytes = (bytes + g - 1) / g * g;
  CUdeviceptr ptr = 0;
  CU_CHECK(reserve(&ptr, bytes, g, 0, 0));
  CUmemGenericAllocationHandle handle{};
  CU_CHECK(create(&handle, bytes, &prop, 0));
  CU_CHECK(map(ptr, bytes, 0, handle, 0));
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU_CHECK(set_access(ptr, bytes, &access, 1));
  return reinterpret_cast<void*>(ptr);
}

// A block of nodes in one allocation: where it lives on the device and its host image.
struct Pool {
  const char* kind;
  Node* device = nullptr;
  size_t capacity = 0;
  std::vector<Node> host;
};

unsigned long long mix_host(unsigned long long acc, unsigned long long v, unsigned long long s) {
#ifdef VA_CHASE_PERTURB
  return acc * 33u + (v ^ s);
#else
  return acc * 31u + (v ^ s);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  const long iters = app::option_long(argc, argv, "iters", 5);
  const int threads = int(app::option_long(argc, argv, "threads", 4096));
  const int steps = int(app::option_long(argc, argv, "steps", 4096));
  const long nodes = app::option_long(argc, argv, "nodes", 262144);
  const int accum_n = int(app::option_long(argc, argv, "accum", 16777216));
  if (iters < 1 || threads < 1 || steps < 1 || nodes < 2048 || accum_n < 1) {
    std::fprintf(stderr, "va_chase: need iters, threads, steps, accum >= 1 and nodes >= 2048\n");
    return 2;
  }
  cudaStream_t stream;
  HIP_CHECK(cudaStreamCreate(&stream));

  // Node pools over every allocation kind; 1,200 small allocations of 2 nodes each among them.
  std::vector<Pool> pools;
  const size_t quarter = size_t(nodes - 2400) / 5;
  auto add_pool = [&](const char* kind, void* device, size_t capacity) {
    pools.push_back({kind, static_cast<Node*>(device), capacity, std::vector<Node>(capacity)});
  };
  void* p = nullptr;
  HIP_CHECK(cudaMalloc(&p, quarter * sizeof(Node)));
  add_pool("cudaMalloc", p, quarter);
  size_t pitch = 0;
  HIP_CHECK(cudaMallocPitch(&p, &pitch, 1024 * sizeof(Node), (quarter + 1023) / 1024));
  add_pool("cudaMallocPitch", p, pitch / sizeof(Node) * ((quarter + 1023) / 1024));
  HIP_CHECK(cudaMallocAsync(&p, quarter * sizeof(Node), stream));
  add_pool("cudaMallocAsync", p, quarter);
  size_t vmm_bytes = quarter * sizeof(Node);
  add_pool("cuMemMap", vmm_allocate(vmm_bytes), quarter);
  HIP_CHECK(cudaMallocManaged(&p, quarter * sizeof(Node)));
  add_pool("cudaMallocManaged", p, quarter);
  for (int i = 0; i < 1200; ++i) {
    HIP_CHECK(cudaMalloc(&p, 2 * sizeof(Node)));
    add_pool("small cudaMalloc", p, 2);
  }

  // One random cycle through every node of every pool.
  std::vector<std::pair<int, size_t>> order;
  for (int i = 0; i < int(pools.size()); ++i)
    for (size_t j = 0; j < pools[i].capacity; ++j) order.emplace_back(i, j);
  std::mt19937_64 rng(42);
  std::shuffle(order.begin(), order.end(), rng);
  auto address = [&](const std::pair<int, size_t>& at) { return pools[at.first].device + at.second; };
  for (size_t k = 0; k < order.size(); ++k) {
    Node& n = pools[order[k].first].host[order[k].second];
    n.next = address(order[(k + 1) % order.size()]);
    n.value = rng();
  }
  for (auto& pool : pools)
    HIP_CHECK(cudaMemcpyAsync(pool.device, pool.host.data(), pool.capacity * sizeof(Node), cudaMemcpyHostToDevice, stream));
  unsigned long long salt[64];
  for (auto& s : salt) s = rng();
  HIP_CHECK(cudaMemcpyToSymbolAsync(g_salt, salt, sizeof salt, 0, cudaMemcpyHostToDevice, stream));

  std::vector<const Node*> heads(threads);
  for (int t = 0; t < threads; ++t) heads[t] = address(order[(size_t(t) * 7919) % order.size()]);
  const Node** d_heads;
  unsigned long long* d_out;
  HIP_CHECK(cudaMalloc(&d_heads, threads * sizeof(Node*)));
  HIP_CHECK(cudaMalloc(&d_out, threads * sizeof(unsigned long long)));
  HIP_CHECK(cudaMemcpyAsync(d_heads, heads.data(), threads * sizeof(Node*), cudaMemcpyHostToDevice, stream));

  std::vector<unsigned> in(accum_n), out0(accum_n);
  for (int i = 0; i < accum_n; ++i) {
    in[i] = (unsigned(i) * 2654435761u) ^ 0x9e3779b9u;
    out0[i] = unsigned(i) * 7u;
  }
  unsigned *d_in, *d_acc;
  HIP_CHECK(cudaMalloc(&d_in, accum_n * sizeof(unsigned)));
  HIP_CHECK(cudaMalloc(&d_acc, accum_n * sizeof(unsigned)));
  HIP_CHECK(cudaMemcpyAsync(d_in, in.data(), accum_n * sizeof(unsigned), cudaMemcpyHostToDevice, stream));
  HIP_CHECK(cudaMemcpyAsync(d_acc, out0.data(), accum_n * sizeof(unsigned), cudaMemcpyHostToDevice, stream));
  HIP_CHECK(cudaStreamSynchronize(stream));

  double t0 = app::now_s();
  for (long it = 0; it < iters; ++it) {
    chase<<<(threads + 255) / 256, 256, 0, stream>>>(d_heads, d_out, threads, steps);
    accumulate<<<(accum_n + 255) / 256, 256, 0, stream>>>(d_acc, d_in, accum_n);
    HIP_CHECK(cudaStreamSynchronize(stream));
  }
  HIP_CHECK_LAUNCH();
  double loop_s = app::now_s() - t0;

  // The host walks the same lists: it knows where every node lives on the device.
  std::vector<unsigned long long> out(threads);
  HIP_CHECK(cudaMemcpy(out.data(), d_out, threads * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  for (int t = 0; t < threads; t += std::max(1, threads / 64)) {
    size_t k = (size_t(t) * 7919) % order.size();
    unsigned long long acc = 0;
    for (int s = 0; s < steps; ++s) {
      acc = mix_host(acc, pools[order[k].first].host[order[k].second].value, salt[s & 63]);
      k = (k + 1) % order.size();
    }
    unsigned long long want = acc ^ reinterpret_cast<unsigned long long>(address(order[k]));
    if (out[t] != want) return app::fail("va_chase", "chase result differs from the host walk");
  }
  std::vector<unsigned> acc(accum_n);
  HIP_CHECK(cudaMemcpy(acc.data(), d_acc, accum_n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int i = 0; i < accum_n; ++i)
    if (acc[i] != out0[i] + unsigned(iters) * (3u * in[i] + 1u)) return app::fail("va_chase", "accumulate result is wrong");

  app::expect_kernel("chase", iters);
  app::expect_kernel("accumulate", iters);
  std::printf("RPL_ACCUM out=%p in=%p n=%d\n", static_cast<void*>(d_acc), static_cast<void*>(d_in), accum_n);
  std::printf("RPL_RESULT app=va_chase iters=%ld threads=%d steps=%d nodes=%zu allocations=%zu loop_s=%.6f\n", iters,
              threads, steps, order.size(), pools.size() + 4, loop_s);
  return 0;
}
#endif
