//@app physics.cu
//@kernel cycles_to_ms
//@what two elements per thread with longlong2 loads (probe app: a parameter named clock_khz, no clock read)
__global__ void cycles_to_ms(const long long* __restrict__ cycles, float* __restrict__ ms, int clock_khz, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float khz = float(clock_khz);
  if (2 * i + 1 < n) {
    const longlong2 c = __ldg(reinterpret_cast<const longlong2*>(cycles) + i);
    reinterpret_cast<float2*>(ms)[i] = make_float2(float(c.x) / khz, float(c.y) / khz);
  } else if (2 * i < n) {
    ms[2 * i] = float(cycles[2 * i]) / khz;
  }
}
