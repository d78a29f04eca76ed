"""A PyTorch elementwise kernel for the capture/replay proof: c = a + b on 64M floats (about 265 us on an H100, long
against the few microseconds a replay's memory restore can add), `--iters` times.
The first elementwise add is the one `rocm-perf capture --kernel 'vectorized_elementwise_kernel.*add'` takes."""
import argparse

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=64 * 1024 * 1024)
ap.add_argument("--iters", type=int, default=20)
args = ap.parse_args()
g = torch.Generator(device="cuda").manual_seed(7)
a = torch.randn(args.n, device="cuda", generator=g)
b = torch.randn(args.n, device="cuda", generator=g)
c = torch.empty_like(a)
torch.cuda.synchronize()
for _ in range(args.iters):
    torch.add(a, b, out=c)
    torch.cuda.synchronize()
assert torch.equal(c, a + b)
print(f"RPL_RESULT app=torch_elementwise n={args.n} iters={args.iters} checksum={float(c.double().sum()):.6e}")
