"""An NCCL all-reduce benchmark of our own with a deliberate straggler (bench/multigpu/gpu_multi.sh):
ITERS float32 all-reduces; every 5th iteration an all-gather, before which rank STRAGGLER sleeps on the
host, so every other rank's all-gather kernel waits for it. The analysis must name that rank and the
all-gather."""
import argparse
import time

import torch
import torch.distributed as dist

import dist_setup

p = argparse.ArgumentParser()
p.add_argument("--iters", type=int, default=30)
p.add_argument("--straggler", type=int, default=1)
p.add_argument("--sleep-ms", type=float, default=60.0)
a, device = dist_setup.start(p)
rank, world = dist.get_rank(), dist.get_world_size()
x = torch.ones(4 << 20, device=device)
shard = torch.ones(1 << 20, device=device)
gathered = torch.empty(world * shard.numel(), device=device)


def all_gather():
    if a.gloo:  # gloo has no all_gather_into_tensor for CUDA tensors
        dist.all_gather(list(gathered.chunk(world)), shard)
    else:
        dist.all_gather_into_tensor(gathered, shard)


# Warm-up: NCCL's set-up and the first collective are slow on whichever rank gets there last.
dist.all_reduce(x)
all_gather()
torch.cuda.synchronize()
dist.barrier()
torch.cuda.synchronize()
for i in range(a.iters):
    y = x * 1.0001  # some compute before the collective
    dist.all_reduce(y)
    if i % 5 == 4:
        if rank == a.straggler:
            torch.cuda.synchronize()
            time.sleep(a.sleep_ms / 1e3)
        all_gather()
torch.cuda.synchronize()
dist.barrier()
dist.destroy_process_group()
print(f"rank {rank}/{world}: done")
