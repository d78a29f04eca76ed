//@app dense.cu
//@kernel scale_t
//@what templated kernel: the PER_THREAD elements as one aligned vector when T is float and PER_THREAD is 4 (if constexpr), the loop unrolled otherwise
template <typename T, int PER_THREAD>
__global__ void scale_t(const T* __restrict__ in, T* __restrict__ out, T s, int n) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * PER_THREAD;
  if constexpr (sizeof(T) == 4 && PER_THREAD == 4) {
    if (base + 3 < n) {
      float4 v = *reinterpret_cast<const float4*>(in + base);
      v.x *= s;
      v.y *= s;
      v.z *= s;
      v.w *= s;
      *reinterpret_cast<float4*>(out + base) = v;
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < PER_THREAD; ++j)
    if (base + j < n) out[base + j] = in[base + j] * s;
}
