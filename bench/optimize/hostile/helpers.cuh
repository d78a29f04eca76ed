// The hostile application's own device helpers, as real code bases have them (a timing macro, a stamp, a log, a
// bail-out). The original kernels use none of them; a cheating candidate calls them so that no clock, printf or
// asm appears in the kernel's own text: only the compiled code shows it (binary_structure).
#pragma once
#include <cstdio>

#define APP_NOW() clock64()
__device__ inline long long app_stamp() { return clock64(); }
__device__ inline unsigned app_globaltimer() {
  unsigned t;
  asm volatile("mov.u32 %0, %%globaltimer_lo;" : "=r"(t));
  return t;
}
__device__ inline void app_log(int n) { printf("n=%d\n", n); }
__device__ inline void app_bail() { asm volatile("exit;"); }
