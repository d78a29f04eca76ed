"""A tensor x data parallel job of our own for the collectives-by-communicator proof (issue 31,
bench/multigpu/gpu_collectives.sh). WORLD ranks in tensor-parallel groups of --tp consecutive ranks
(all-reduce inside the group) and data-parallel groups across them (all-reduce, or reduce-scatter then
all-gather); every step is a chain of bf16 GEMMs, and the last tensor-parallel group runs --slow-extra more
GEMMs than the others, so it is slower as a whole.

--mode job:  the steps; each rank writes what it passed to every call into --out-dir (rank<r>.json).
--mode loop: nccl-tests' measurement for the same calls and sizes, unprofiled: per call, warm-up, then
             --iters back-to-back calls timed on the host around a device synchronisation (nccl-tests'
             timing), the time averaged over the group's ranks; algbw = size / time and busbw = algbw x
             2(n-1)/n (all-reduce), (n-1)/n (reduce-scatter, all-gather), size being the whole buffer."""
import argparse
import json
import os
import time

import torch
import torch.distributed as dist

p = argparse.ArgumentParser()
p.add_argument("--mode", choices=["job", "loop"], default="job")
p.add_argument("--steps", type=int, default=30)
p.add_argument("--gemms", type=int, default=6)
p.add_argument("--slow-extra", type=int, default=4)
p.add_argument("--gemm-n", type=int, default=4096)
p.add_argument("--tp", type=int, default=2)
p.add_argument("--tp-mib", type=int, default=64)
p.add_argument("--dp-mib", type=int, default=128)
p.add_argument("--dp-op", choices=["allreduce", "rs_ag"], default="rs_ag")
p.add_argument("--iters", type=int, default=20)
p.add_argument("--out-dir", required=True, help="folder for rank<r>.json")
p.add_argument("--host-per-rank", action="store_true",
               help="NCCL_HOSTID per rank: NCCL then takes the ranks for separate hosts (network transport), which "
                    "lets several ranks share one GPU where NCCL refuses that on one host")
a = p.parse_args()
if a.host_per_rank:
    os.environ["NCCL_HOSTID"] = "rpl-rank-" + os.environ.get("RANK", "0")

local = int(os.environ.get("LOCAL_RANK", "0"))
device = torch.device("cuda", local % torch.cuda.device_count())
torch.cuda.set_device(device)
dist.init_process_group("nccl", device_id=device)
rank, world = dist.get_rank(), dist.get_world_size()
tp_groups = [list(range(g * a.tp, (g + 1) * a.tp)) for g in range(world // a.tp)]
dp_groups = [list(range(i, world, a.tp)) for i in range(a.tp)]
# Every rank creates every group, in the same order (torch.distributed's rule).
tp_pg = {tuple(g): dist.new_group(g) for g in tp_groups}
dp_pg = {tuple(g): dist.new_group(g) for g in dp_groups}
my_tp = next(g for g in tp_groups if rank in g)
my_dp = next(g for g in dp_groups if rank in g)
tp_group, dp_group = tp_pg[tuple(my_tp)], dp_pg[tuple(my_dp)]
slow = my_tp == tp_groups[-1]

bf16 = torch.bfloat16
tp_buf = torch.ones(a.tp_mib << 19, device=device, dtype=bf16)  # MiB of bf16: 2**19 elements each
dp_buf = torch.ones(a.dp_mib << 19, device=device, dtype=bf16)
dp_shard = torch.empty(dp_buf.numel() // len(my_dp), device=device, dtype=bf16)
x = torch.randn(a.gemm_n, a.gemm_n, device=device, dtype=bf16)
w = torch.randn(a.gemm_n, a.gemm_n, device=device, dtype=bf16)
y = torch.empty_like(x)


def calls():
    """(group name, group ranks, operation, run, NCCL count, size nccl-tests divides by)."""
    out = []
    if len(my_tp) > 1:
        out.append(("tp", my_tp, "AllReduce", lambda: dist.all_reduce(tp_buf, group=tp_group), tp_buf.numel(),
                    tp_buf.numel() * 2))
    if a.dp_op == "allreduce":
        out.append(("dp", my_dp, "AllReduce", lambda: dist.all_reduce(dp_buf, group=dp_group), dp_buf.numel(),
                    dp_buf.numel() * 2))
    else:
        out.append(("dp", my_dp, "ReduceScatter", lambda: dist.reduce_scatter_tensor(dp_shard, dp_buf, group=dp_group),
                    dp_shard.numel(), dp_buf.numel() * 2))
        out.append(("dp", my_dp, "AllGather", lambda: dist.all_gather_into_tensor(dp_buf, dp_shard, group=dp_group),
                    dp_shard.numel(), dp_buf.numel() * 2))
    return out


FACTOR = {"AllReduce": lambda n: 2 * (n - 1) / n, "ReduceScatter": lambda n: (n - 1) / n,
          "AllGather": lambda n: (n - 1) / n}
log = {"rank": rank, "world": world, "tp_group": my_tp, "dp_group": my_dp, "slow_group": slow, "mode": a.mode,
       "args": vars(a), "nccl_version": ".".join(map(str, torch.cuda.nccl.version())), "torch": torch.__version__,
       "device": torch.cuda.get_device_name(device)}
if a.mode == "job":
    passed = []
    for step in range(a.steps):
        for _ in range(a.gemms + (a.slow_extra if slow else 0)):
            torch.mm(x, w, out=y)
        for name, group, op, run, count, size in calls():
            run()
            if step == 0:
                passed.append({"group": name, "ranks": group, "operation": op, "count": count, "element_bytes": 2,
                               "bytes": count * 2, "nccl_tests_size": size})
    torch.cuda.synchronize()
    log["calls_per_step"] = passed
    log["steps"] = a.steps
else:
    results = []
    for name, group, op, run, count, size in calls():
        pg = tp_group if name == "tp" else dp_group
        for _ in range(5):
            run()
        torch.cuda.synchronize()
        dist.barrier(group=pg, device_ids=[device.index])
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(a.iters):
            run()
        torch.cuda.synchronize()
        dt = torch.tensor([(time.perf_counter() - t0) / a.iters], device=device, dtype=torch.float64)
        dist.all_reduce(dt, group=pg)
        sec = dt.item() / len(group)
        algbw = size / sec / 1e9
        results.append({"group": name, "ranks": group, "operation": op, "count": count, "bytes": count * 2,
                        "nccl_tests_size": size, "iters": a.iters, "time_us": sec * 1e6, "algbw_gb_per_s": algbw,
                        "busbw_gb_per_s": algbw * FACTOR[op](len(group))})
    log["loop"] = results
os.makedirs(a.out_dir, exist_ok=True)
with open(os.path.join(a.out_dir, f"rank{rank}.json"), "w") as f:
    json.dump(log, f, indent=1)
dist.barrier()
dist.destroy_process_group()
