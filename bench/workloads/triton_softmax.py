#!/usr/bin/env python3
"""A Triton JIT kernel (row softmax) for rocm-perf's checks: compiled at run time and loaded with
cuModuleLoadData, the path a real Triton workload takes. Checks the result against torch.softmax.

  triton_softmax.py [--rows 8192] [--cols 1024] [--launches 20]"""
import argparse
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_rows(out_ptr, in_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * stride + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * stride + offs, e / tl.sum(e, axis=0), mask=mask)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=8192)
    ap.add_argument("--cols", type=int, default=1024)
    ap.add_argument("--launches", type=int, default=20)
    args = ap.parse_args()
    torch.manual_seed(0)
    x = torch.randn(args.rows, args.cols, device="cuda")
    y = torch.empty_like(x)
    block = triton.next_power_of_2(args.cols)
    for _ in range(args.launches):
        softmax_rows[(args.rows,)](y, x, args.cols, x.stride(0), BLOCK=block)
    torch.cuda.synchronize()
    err = (y - torch.softmax(x, dim=1)).abs().max().item()
    print(f"RPL_RESULT max_abs_err={err:.3e}")
    return 0 if err < 1e-5 else 1


if __name__ == "__main__":
    sys.exit(main())
