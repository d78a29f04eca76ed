#!/usr/bin/env python3
"""Why the H200 corpus rejected four correct reductions (issue 27), emulated on the CPU in float32 with numpy:
the corpus apps' own inputs (bench/optimize/corpus/reduce.cu and dense.cu), the original's summation order and the
candidate's (warp shuffles), the largest difference, and how many elements fail each --rtol rule at rtol 1e-5:
  element: |a - b| <= rtol * |a|                       (numpy.isclose; the rule of the first GPU run)
  region:  |a - b| <= rtol * max(|a|, RMS of region)   (--rtol-scale region, the default since)
Multiplies are rounded to float32 before each add (the GPU fuses them: an approximation for the gemv).
  python3 bench/optimize/emulate_reduction_tolerance.py"""
import numpy as np

F = np.float32


def report(name, original, candidate, rtol=1e-5):
    d = np.abs(original.astype(np.float64) - candidate)
    rms = np.sqrt(np.mean(original.astype(np.float64) ** 2))
    print(f"{name}: elements {len(d)}, differing {np.count_nonzero(d)}, max_abs_error {d.max()!r}, rms {rms:.6f}, "
          f"fail_element {np.count_nonzero(d > rtol * np.abs(original))}, "
          f"fail_region {np.count_nonzero(d > rtol * np.maximum(np.abs(original), rms))}")


def shuffle_down_sum(v):  # v[..., 32]: lane 0 after offsets 16, 8, 4, 2, 1
    v = v.copy()
    for off in (16, 8, 4, 2, 1):
        v[..., :32 - off] = (v[..., :32 - off] + v[..., off:]).astype(F)
    return v[..., 0]


# reduce.cu: block_sum over 2^22 floats, 256 threads per block
n = 1 << 22
i = np.arange(n, dtype=np.uint64)
x = ((((i * 7919) % 2003).astype(F) / F(2003.0)) - F(0.5)).astype(F)
blocks = x.reshape(-1, 256)
s = blocks.copy()
step = 128
while step > 0:  # the original's shared-memory tree
    s[:, :step] = (s[:, :step] + s[:, step:2 * step]).astype(F)
    step //= 2
warp_sums = shuffle_down_sum(blocks.reshape(-1, 8, 32))  # block_sum_warp: 8 warps, then warp 0 over their sums
lanes = np.zeros((warp_sums.shape[0], 32), F)
lanes[:, :8] = warp_sums
report("block_sum vs block_sum_warp", s[:, 0], shuffle_down_sum(lanes))

# dense.cu: gemv_t (one thread per row) vs gemv_warp_per_row (32 lanes, stride 32, then shuffles)
rows, cols = 4096, 1024
k = np.arange(rows * cols, dtype=np.uint64)
a = ((((k * 7919) % 1000).astype(F) / F(1000.0)) - F(0.5)).astype(F).reshape(rows, cols)
j = np.arange(cols, dtype=np.uint64)
xv = ((((j * 31) % 977).astype(F) / F(977.0)) - F(0.3)).astype(F)
p = (a * xv).astype(F)
acc = np.zeros(rows, F)
for c in range(cols):
    acc = (acc + p[:, c]).astype(F)
lane = np.zeros((rows, 32), F)
for c0 in range(0, cols, 32):
    lane = (lane + p[:, c0:c0 + 32]).astype(F)
report("gemv_t vs gemv_warp_per_row", acc, shuffle_down_sum(lane))
