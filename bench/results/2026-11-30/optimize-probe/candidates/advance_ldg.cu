//@app physics.cu
//@kernel advance
//@what the read-only velocity through __ldg, the step read once into a register (probe app: the parameter is named `time`)
__global__ void advance(float* __restrict__ pos, const float* __restrict__ vel, float time, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) pos[i] = pos[i] + __ldg(&vel[i]) * time;
}
