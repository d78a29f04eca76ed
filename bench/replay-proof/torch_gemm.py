"""A cuBLAS GEMM launched by PyTorch for the capture/replay proof: C = A @ B, fp32 (TF32 off), 4096^3,
`--iters` times. `rocm-perf capture --kernel '[Gg][Ee][Mm][Mm]'` takes cuBLAS's first GEMM kernel."""
import argparse

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=4096)
ap.add_argument("--iters", type=int, default=20)
args = ap.parse_args()
torch.backends.cuda.matmul.allow_tf32 = False
g = torch.Generator(device="cuda").manual_seed(11)
A = torch.randn(args.n, args.n, device="cuda", generator=g)
B = torch.randn(args.n, args.n, device="cuda", generator=g)
C = torch.empty(args.n, args.n, device="cuda")
torch.cuda.synchronize()
for _ in range(args.iters):
    torch.matmul(A, B, out=C)
    torch.cuda.synchronize()
print(f"RPL_RESULT app=torch_gemm n={args.n} iters={args.iters} checksum={float(C.double().sum()):.6e}")
