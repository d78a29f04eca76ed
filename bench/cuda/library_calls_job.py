#!/usr/bin/env python3
"""The job of bench/cuda/library_trace_gpu.sh (issue 33): known numbers of cuBLAS and cuDNN calls from PyTorch,
with no NVTX range of its own, so that every range in the trace comes from the libraries themselves.

  library_calls_job.py [--gemms 5] [--convs 4]

Prints RPL_EXPECT lines (library, calls made) and the library versions. Exits 1 when CUDA is missing."""
import argparse
import sys

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gemms", type=int, default=5)
    ap.add_argument("--convs", type=int, default=4)
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return 1
    torch.backends.cudnn.enabled = True
    torch.backends.cudnn.benchmark = False  # no autotuning calls beside the counted ones
    dev = torch.device("cuda")
    x = torch.randn(1024, 1024, device=dev)
    for _ in range(a.gemms):
        x = torch.mm(x, x) * 1e-3  # cuBLAS (cublasSgemm / cublasLt by PyTorch's choice)
    img = torch.randn(8, 16, 64, 64, device=dev)
    w = torch.randn(32, 16, 3, 3, device=dev)
    for _ in range(a.convs):
        y = torch.nn.functional.conv2d(img, w, padding=1)  # cuDNN
    torch.cuda.synchronize()
    print(f"RPL_EXPECT cublas {a.gemms}")
    print(f"RPL_EXPECT cudnn {a.convs}")
    print(f"torch {torch.__version__} cuda {torch.version.cuda} cudnn {torch.backends.cudnn.version()} "
          f"checksum {float(x.sum()) + float(y.sum()):.3e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
