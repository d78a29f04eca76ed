#!/usr/bin/env python3
"""A real PyTorch convolutional training workload for rocm-perf's own checks: a small ResNet (3x3 convolutions,
batch norm, ReLU, residual additions, strided downsampling, global average pooling, a linear head) in
channels-last layout under bf16 autocast, so the convolutions are cuDNN's kernels (forward, data gradient and
weight gradient: implicit GEMM, and whatever cudnn.benchmark picks), then cross-entropy, backward and an SGD step
with momentum. Each training step is marked with an NVTX range "train_step" (the warm-up with "warmup").

  cnn_step.py [--steps 5] [--warmup 2] [--batch 32] [--size 64] [--width 64] [--blocks 2] [--classes 100]
              [--no-benchmark] [--fp32]

Prints RPL_RESULT lines (loss per step, ms per step). Exits 1 if the loss is not finite."""
import argparse
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

from step_loop import run_steps


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + (x if self.down is None else self.down(x)))


class ResNet(nn.Module):
    def __init__(self, width, blocks, classes):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        layers, cin = [], width
        for stage in range(3):
            cout = width * 2 ** stage
            for b in range(blocks):
                layers.append(Block(cin, cout, 2 if (b == 0 and stage > 0) else 1))
                cin = cout
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(cin, classes)

    def forward(self, x):
        x = self.body(self.stem(x))
        return self.head(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--blocks", type=int, default=2)
    ap.add_argument("--classes", type=int, default=100)
    ap.add_argument("--no-benchmark", action="store_true", help="cudnn.benchmark off: cuDNN's heuristics choose")
    ap.add_argument("--fp32", action="store_true", help="no autocast (TF32 off): fp32 convolutions")
    args = ap.parse_args()

    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = not args.no_benchmark
    if args.fp32:
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    model = ResNet(args.width, args.blocks, args.classes).to(dev, memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    images = torch.randn(args.batch, 3, args.size, args.size, device=dev).to(memory_format=torch.channels_last)
    labels = torch.randint(0, args.classes, (args.batch,), device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=not args.fp32):
            logits = model(images)
        loss = F.cross_entropy(logits.float(), labels)
        loss.backward()
        opt.step()
        return loss

    return run_steps(step, args.steps, args.warmup)


if __name__ == "__main__":
    sys.exit(main())
