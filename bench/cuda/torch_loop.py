#!/usr/bin/env python3
"""The PyTorch side of the collector's overhead benchmark: the same launch-bound loop (tiny in-place adds
on a 4 KB tensor) and a GPU-bound loop (8192^2 bf16 matmuls), untraced, under torch.profiler, or under our
collector (then this script runs untraced and the environment carries CUDA_INJECTION64_PATH).

  torch_loop.py --mode none|prof_cuda|prof_cpu_cuda [--launches 100000] [--mm 200] [--mm-size 8192]

Prints RPL_RESULT lines (loop times exclude the profiler's post-processing) and RPL_EXPECT lines for the
add kernels. Exits 1 on a wrong result."""
import argparse
import contextlib
import sys
import time

import torch


def profiler(mode):
    if mode == "none":
        return contextlib.nullcontext()
    acts = [torch.profiler.ProfilerActivity.CUDA]
    if mode == "prof_cpu_cuda":
        acts.insert(0, torch.profiler.ProfilerActivity.CPU)
    return torch.profiler.profile(activities=acts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="none", choices=["none", "prof_cuda", "prof_cpu_cuda"])
    ap.add_argument("--launches", type=int, default=100000)
    ap.add_argument("--mm", type=int, default=200)
    ap.add_argument("--mm-size", type=int, default=8192)
    args = ap.parse_args()
    dev = torch.device("cuda")
    warm = 1000

    x = torch.zeros(1024, device=dev)
    for _ in range(warm):
        x.add_(1.0)
    torch.cuda.synchronize()
    with profiler(args.mode):
        t0 = time.perf_counter()
        for _ in range(args.launches):
            x.add_(1.0)
        torch.cuda.synchronize()
        launch_s = time.perf_counter() - t0
    if x[0].item() != float(args.launches + warm):
        print(f"torch_loop: WRONG RESULT: {x[0].item()} != {args.launches + warm}", file=sys.stderr)
        return 1
    print(f"RPL_EXPECT kernel=add count={args.launches + warm}")
    print(f"RPL_RESULT app=torch_launch mode={args.mode} kernels={args.launches} loop_s={launch_s:.6f} "
          f"us_per_launch={1e6 * launch_s / args.launches:.4f}")

    if args.mm > 0:
        n = args.mm_size
        g = torch.Generator(device=dev).manual_seed(0)
        a = torch.randn(n, n, device=dev, dtype=torch.bfloat16, generator=g)
        b = torch.randn(n, n, device=dev, dtype=torch.bfloat16, generator=g)
        c = torch.empty(n, n, device=dev, dtype=torch.bfloat16)
        for _ in range(5):
            torch.mm(a, b, out=c)
        torch.cuda.synchronize()
        with profiler(args.mode):
            t0 = time.perf_counter()
            for _ in range(args.mm):
                torch.mm(a, b, out=c)
            torch.cuda.synchronize()
            mm_s = time.perf_counter() - t0
        ref = (a[:4].double() @ b.double())
        err = ((c[:4].double() - ref).norm() / ref.norm()).item()
        if not err < 1e-2:
            print(f"torch_loop: WRONG RESULT: mm relative error {err}", file=sys.stderr)
            return 1
        print(f"RPL_RESULT app=torch_mm mode={args.mode} kernels={args.mm} loop_s={mm_s:.6f} "
              f"ms_per_mm={1e3 * mm_s / args.mm:.4f} tflops={2 * n**3 * args.mm / mm_s / 1e12:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
