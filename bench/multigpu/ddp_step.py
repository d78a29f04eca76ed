"""A DDP training step of our own for the multi-GPU proof (bench/multigpu/gpu_multi.sh): a small MLP,
NCCL backend (gloo with --gloo, for two processes sharing one GPU, which NCCL refuses), a few steps."""
import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import dist_setup

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=8)
a, device = dist_setup.start(p)
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).to(device)
ddp = DDP(model, device_ids=None if a.gloo else [device.index])
opt = torch.optim.SGD(ddp.parameters(), lr=1e-3)
x = torch.randn(64, 1024, device=device)
for _ in range(a.steps):
    opt.zero_grad(set_to_none=True)
    loss = ddp(x).square().mean()
    loss.backward()
    opt.step()
torch.cuda.synchronize()
dist.barrier()
dist.destroy_process_group()
print(f"rank {dist.get_rank() if dist.is_initialized() else os.environ.get('RANK')}: loss {loss.item():.4f}")
