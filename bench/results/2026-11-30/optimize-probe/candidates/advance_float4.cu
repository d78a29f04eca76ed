//@app physics.cu
//@kernel advance
//@what four elements per thread through float4 loads and stores (probe app: the parameter is named `time`), scalar tail
__global__ void advance(float* __restrict__ pos, const float* __restrict__ vel, float time, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (4 * i + 3 < n) {
    float4 p = reinterpret_cast<float4*>(pos)[i];
    const float4 v = __ldg(reinterpret_cast<const float4*>(vel) + i);
    p.x = p.x + v.x * time;
    p.y = p.y + v.y * time;
    p.z = p.z + v.z * time;
    p.w = p.w + v.w * time;
    reinterpret_cast<float4*>(pos)[i] = p;
  } else {
    for (int k = 4 * i; k < n && k < 4 * i + 4; ++k) pos[k] = pos[k] + vel[k] * time;
  }
}
