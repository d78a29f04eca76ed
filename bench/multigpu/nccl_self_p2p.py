"""One process, one GPU: NCCL calls that go through NCCL's planner (and so its profiler plugin) without a
second GPU. NCCL skips its planner for collectives on a one-rank communicator, but a send and a receive to
oneself in one group run a SendRecv kernel. Two one-rank communicators, --iters groups each of a send and a
receive of --mib MiB of bf16 to oneself, through NCCL's C API (ctypes, the libnccl PyTorch loaded); writes
what it passed to --log. Used by bench/multigpu/gpu_collectives_1gpu.sh when only one GPU is lent."""
import argparse
import ctypes
import glob
import json
import os
import site

import torch

p = argparse.ArgumentParser()
p.add_argument("--iters", type=int, default=10)
p.add_argument("--mib", type=int, default=16)
p.add_argument("--log", required=True)
a = p.parse_args()

torch.cuda.set_device(0)
torch.zeros(1, device="cuda")
candidates = ["libnccl.so.2"]
for d in site.getsitepackages():
    candidates += sorted(glob.glob(os.path.join(d, "nvidia", "**", "libnccl.so*"), recursive=True))
nccl = None
for c in candidates:
    try:
        nccl = ctypes.CDLL(c)
        break
    except OSError:
        continue
assert nccl is not None, "no libnccl"


class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * 128)]


def check(rc, what):
    if rc != 0:
        raise RuntimeError(f"{what}: ncclResult {rc}")


version = ctypes.c_int()
check(nccl.ncclGetVersion(ctypes.byref(version)), "ncclGetVersion")
stream = torch.cuda.current_stream().cuda_stream
comms = []
for _ in range(2):
    uid = UniqueId()
    check(nccl.ncclGetUniqueId(ctypes.byref(uid)), "ncclGetUniqueId")
    comm = ctypes.c_void_p()
    check(nccl.ncclCommInitRank(ctypes.byref(comm), 1, uid, 0), "ncclCommInitRank")
    comms.append(comm)
count = a.mib << 19  # bf16 elements
src = torch.ones(count, device="cuda", dtype=torch.bfloat16)
dst = torch.empty_like(src)
BF16 = 9  # ncclBfloat16
for i in range(a.iters):
    for comm in comms:
        check(nccl.ncclGroupStart(), "ncclGroupStart")
        check(nccl.ncclSend(ctypes.c_void_p(src.data_ptr()), ctypes.c_size_t(count), BF16, 0, comm,
                            ctypes.c_void_p(stream)), "ncclSend")
        check(nccl.ncclRecv(ctypes.c_void_p(dst.data_ptr()), ctypes.c_size_t(count), BF16, 0, comm,
                            ctypes.c_void_p(stream)), "ncclRecv")
        check(nccl.ncclGroupEnd(), "ncclGroupEnd")
torch.cuda.synchronize()
assert torch.equal(src, dst)
for comm in comms:
    check(nccl.ncclCommDestroy(comm), "ncclCommDestroy")
os.makedirs(a.log, exist_ok=True)
with open(os.path.join(a.log, "self_p2p.json"), "w") as f:
    json.dump({"nccl_version_code": version.value, "library": nccl._name, "iters": a.iters, "communicators": 2,
               "calls_per_group": ["Send", "Recv"], "count": count, "element_bytes": 2, "bytes": count * 2,
               "torch": torch.__version__, "device": torch.cuda.get_device_name(0)}, f, indent=1)
print("ok", version.value, count * 2)
