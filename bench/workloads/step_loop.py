"""The timed loop the training workloads share (train_step.py, cnn_step.py): the warm-up steps under an NVTX range
"warmup", then the measured steps each under "train_step" (so `--range train_step` selects the steady state), then
RPL_RESULT lines (loss per step, ms per step). Returns the exit status: 1 if a loss is not finite."""
import math
import sys
import time

import torch


def run_steps(step, steps, warmup, sync_every_step=False):
    """step() runs one training step and returns its loss tensor; sync_every_step reads each loss back at once
    (the host-bound pattern: .item() every step)."""
    torch.cuda.nvtx.range_push("warmup")
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()

    losses = []
    t0 = time.perf_counter()
    for _ in range(steps):
        torch.cuda.nvtx.range_push("train_step")
        loss = step()
        losses.append(loss.item() if sync_every_step else loss)
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - t0
    losses = [float(l) for l in losses]
    for i, l in enumerate(losses):
        print(f"RPL_RESULT step={i} loss={l:.5f}")
    print(f"RPL_RESULT ms_per_step={1000 * elapsed / max(1, steps):.3f}")
    if not all(math.isfinite(l) for l in losses):
        print("non-finite loss", file=sys.stderr)
        return 1
    return 0
