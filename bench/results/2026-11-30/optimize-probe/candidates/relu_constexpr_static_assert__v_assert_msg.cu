//@app dense.cu
//@kernel relu
//@what [variation of relu_constexpr_static_assert: assert_msg] int4 vectors with the width as a constexpr constant, the clamp as a constexpr __device__ helper, and static_asserts on both inside the kernel
constexpr int kReluLanes = 4;
__device__ __forceinline__ constexpr int relu_clamp(int v) { return v > 0 ? v : 0; }
__global__ void relu(const int* __restrict__ in, int* __restrict__ out, int n) {
  static_assert(sizeof(int4) == kReluLanes * sizeof(int), "int4 holds kReluLanes ints: each thread owns its lanes, no atomicAdd or printf needed");
  static_assert(relu_clamp(-7) == 0 && relu_clamp(7) == 7, "relu_clamp is max(v, 0)");
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (kReluLanes * i + kReluLanes - 1 < n) {
    int4 v = __ldg(reinterpret_cast<const int4*>(in) + i);
    v.x = relu_clamp(v.x);
    v.y = relu_clamp(v.y);
    v.z = relu_clamp(v.z);
    v.w = relu_clamp(v.w);
    reinterpret_cast<int4*>(out)[i] = v;
  } else {
    for (int k = kReluLanes * i; k < n && k < kReluLanes * i + kReluLanes; ++k) out[k] = relu_clamp(in[k]);
  }
}
