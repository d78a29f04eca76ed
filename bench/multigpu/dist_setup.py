"""Shared start of the multi-GPU proof's workloads: this rank's GPU (LOCAL_RANK modulo the visible GPUs,
so two ranks can share one) and the process group (NCCL, or gloo where NCCL cannot run)."""
import argparse
import os

import torch
import torch.distributed as dist


def start(parser: argparse.ArgumentParser):
    parser.add_argument("--gloo", action="store_true", help="gloo instead of NCCL (two ranks on one GPU)")
    args = parser.parse_args()
    local = int(os.environ.get("LOCAL_RANK", "0"))
    device = torch.device("cuda", local % torch.cuda.device_count())
    torch.cuda.set_device(device)
    dist.init_process_group("gloo" if args.gloo else "nccl")
    return args, device
