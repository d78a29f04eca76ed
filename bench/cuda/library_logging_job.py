#!/usr/bin/env python3
"""The job of bench/cuda/library_trace_logging_gpu.sh (issue 33): known numbers of cuBLAS, cuBLASLt and cuDNN calls
from PyTorch in fp32 and bf16, with no NVTX range of its own, so that the calls in library_trace.csv can only come
from the libraries' API logs that `profile --library-trace` switches on.

  library_logging_job.py [--repeat 4] [--pause 1.1]

Each kind of call is made --repeat times, with --pause seconds before each kind: cuBLAS and cuBLASLt log whole
seconds, and calls sharing a second are linked by order only when their window holds as many launches as calls,
so the pauses keep kinds (whose kernels are all cuBLAS's, whichever API launched them) in different seconds. Prints
RPL_EXPECT lines (kind, library family, data type, calls made) and the library versions. Exits 1 without CUDA."""
import argparse
import sys
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=4)
    ap.add_argument("--pause", type=float, default=1.1)
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return 1
    torch.backends.cudnn.enabled = True
    torch.backends.cudnn.benchmark = False  # no autotuning calls beside the counted ones
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    checksum = 0.0
    kinds = []
    for dtype, name in ((torch.float32, "fp32"), (torch.bfloat16, "bf16")):
        x = torch.randn(512, 768, device=dev, dtype=dtype)
        w = torch.randn(768, 1024, device=dev, dtype=dtype)
        bias = torch.randn(1024, device=dev, dtype=dtype)
        img = torch.randn(8, 16, 56, 56, device=dev, dtype=dtype)
        filt = torch.randn(32, 16, 3, 3, device=dev, dtype=dtype)
        torch.cuda.synchronize()
        for kind, family, call in (("matmul", "blas", lambda: torch.mm(x, w)),
                                   ("linear", "blas", lambda: torch.nn.functional.linear(x, w.t(), bias)),
                                   ("conv2d", "dnn", lambda: torch.nn.functional.conv2d(img, filt, padding=1))):
            time.sleep(a.pause)
            for _ in range(a.repeat):
                y = call()
            torch.cuda.synchronize()
            checksum += float(y.float().sum())
            kinds.append((kind, family, name))
    for kind, family, name in kinds:
        print(f"RPL_EXPECT {kind} {family} {name} {a.repeat}")
    print(f"torch {torch.__version__} cuda {torch.version.cuda} cudnn {torch.backends.cudnn.version()} "
          f"checksum {checksum:.3e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
