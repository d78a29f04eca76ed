#!/usr/bin/env python3
"""A real PyTorch training workload for rocm-perf's own checks: a bf16 transformer encoder (embedding,
flash attention through SDPA, layer norm, GELU MLP, GEMMs of several shapes), cross-entropy, backward and an
AdamW step. Each training step is marked with an NVTX range "train_step" (and the warm-up with "warmup"), so
`--range train_step` can select the steady state.

  train_step.py [--steps 5] [--warmup 2] [--layers 2] [--d-model 1024] [--heads 16] [--seq 512] [--batch 8]
                [--vocab 8192] [--fused-adam] [--sync-every-step] [--compile] [--check]

Prints RPL_RESULT lines (loss per step, ms per step). Exits 1 if the loss is not finite."""
import argparse
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

from step_loop import run_steps


class Model(nn.Module):
    def __init__(self, vocab, d_model, heads, layers, seq):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = nn.Parameter(torch.randn(seq, d_model) * 0.02)
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=4 * d_model, dropout=0.0,
                                           activation="gelu", batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, tokens):
        x = self.embed(tokens) + self.pos[: tokens.shape[1]]
        x = self.encoder(x, is_causal=False)
        return self.head(self.norm(x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--d-model", type=int, default=1024)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--vocab", type=int, default=8192)
    ap.add_argument("--fused-adam", action="store_true")
    ap.add_argument("--sync-every-step", action="store_true", help="host-bound pattern: .item() each step")
    ap.add_argument("--compile", action="store_true",
                    help="torch.compile the model: Inductor's generated Triton kernels (fused) instead of eager ATen")
    args = ap.parse_args()

    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = Model(args.vocab, args.d_model, args.heads, args.layers, args.seq).to(dev, dtype=torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=args.fused_adam)
    forward = torch.compile(model) if args.compile else model
    tokens = torch.randint(0, args.vocab, (args.batch, args.seq), device=dev)
    targets = torch.randint(0, args.vocab, (args.batch, args.seq), device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        logits = forward(tokens)
        loss = F.cross_entropy(logits.float().view(-1, args.vocab), targets.view(-1))
        loss.backward()
        opt.step()
        return loss

    return run_steps(step, args.steps, args.warmup, args.sync_every_step)


if __name__ == "__main__":
    sys.exit(main())
