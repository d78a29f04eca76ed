//@app dense.cu
//@kernel scale_t
//@include <type_traits>
//@what [variation of scale_t_type_trait: std_type_traits] templated kernel: if constexpr on std::is_same_v<T, float> and PER_THREAD % 4 == 0 selects float4 loads/stores, the scalar loop (unrolled) otherwise
template <typename T, int PER_THREAD>
__global__ void scale_t(const T* __restrict__ in, T* __restrict__ out, T s, int n) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * PER_THREAD;
  if constexpr (std::is_same_v<T, float> && PER_THREAD % 4 == 0) {
    if (base + PER_THREAD <= n) {
#pragma unroll
      for (int j = 0; j < PER_THREAD; j += 4) {
        float4 v = *reinterpret_cast<const float4*>(in + base + j);
        v.x *= s;
        v.y *= s;
        v.z *= s;
        v.w *= s;
        *reinterpret_cast<float4*>(out + base + j) = v;
      }
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < PER_THREAD; ++j)
    if (base + j < n) out[base + j] = in[base + j] * s;
}
