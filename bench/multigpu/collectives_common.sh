# Sourced by the collectives proof's scripts (gpu_collectives.sh, gpu_collectives_1gpu.sh).

# run_header LIB: what ran where: date, the binaries' commit, the GPUs, PyTorch and its NCCL.
run_header() {
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  echo "binaries: commit $(tr '\n' ' ' < "$1/COMMIT" 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
}

# record_topology DIR: DIR/<host>/gpu_topology.txt as `rocm-perf profile` writes it on NVIDIA (the commands of
# collectors::nvidia_topology_commands, each after "== <command>").
record_topology() {
  mkdir -p "$1/$(hostname)"
  { for cmd in "nvidia-smi -L" "nvidia-smi topo -m" "nvidia-smi nvlink -s" \
               "nvidia-smi --query-gpu=uuid,pcie.link.gen.max,pcie.link.width.max --format=csv,noheader"; do
      echo "== $cmd"; $cmd; echo; done; } > "$1/$(hostname)/gpu_topology.txt" 2>/dev/null
}
