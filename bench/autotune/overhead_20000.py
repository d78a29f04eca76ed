#!/usr/bin/env python3
"""The search's overhead at 20,000 configurations, wall clock and CPU time side by side.

overhead_20000.py --cli build/src/cli/rocm-perf --seeds 0 1 2 --out overhead.txt [--nice 10] [--cache KT_CACHE]

Writes the synthetic 20,000-configuration bowl of replay_bench.py (A, B in 1..25, C in 1..32,
time = 1 + 0.01 (A-17)^2 + 0.02 (B-6)^2 + 0.005 (C-20)^2 + 0.05 u, u from random.Random(7) in A, B, C order)
as a Kernel Tuner cache, runs `rocm-perf autotune --simulate` on it at 2% per seed and records, per seed,
autotune.json's tuner_ms_per_configuration (wall clock of the tuner's own work) beside the process's CPU time
(user + sys, from os.wait4) per measured configuration, and the load average before and after.
--cache: a real Kernel Tuner cache instead of the synthetic bowl, e.g. bench/autotune/spaces/kernel_tuner_caches/
gemm_RTX_3090.json.gz (17,956 configurations of 15 parameters, 10 of them varying: the model's features grow with the
square of the parameters, so a 3-parameter bowl alone understates the overhead of a real space).
"""
import argparse, json, os, random, subprocess, tempfile, time


def write_cache(path):
    rng = random.Random(7)
    va, vb, vc = list(range(1, 26)), list(range(1, 26)), list(range(1, 33))
    cache = {}
    for a in va:
        for b in vb:
            for c in vc:
                t = 1.0 + 0.01 * (a - 17) ** 2 + 0.02 * (b - 6) ** 2 + 0.005 * (c - 20) ** 2 + 0.05 * rng.random()
                cache[f"{a},{b},{c}"] = {"A": a, "B": b, "C": c, "time": t}
    json.dump({"tune_params_keys": ["A", "B", "C"], "tune_params": {"A": va, "B": vb, "C": vc}, "cache": cache},
              open(path, "w"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--budget", default="2%")
    ap.add_argument("--nice", type=int, default=0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--cache", help="a Kernel Tuner cache (.json or .json.gz) instead of the synthetic bowl")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="overhead20000-")
    if a.cache:
        cache = os.path.abspath(a.cache)
    else:
        cache = os.path.join(tmp, "synthetic_20000.json")
        write_cache(cache)
    lines = []
    for seed in a.seeds:
        out = os.path.join(tmp, f"out{seed}")
        cmd = ["nice", "-n", str(a.nice), a.cli, "autotune", "--simulate", cache, "--budget", a.budget,
               "--seed", str(seed), "-o", out, "--quiet"]
        load0 = os.getloadavg()
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - t0
        if status != 0:
            raise SystemExit(f"seed {seed}: exit status {status}")
        d = json.load(open(os.path.join(out, "autotune.json")))
        measured = len(d["measurements"])
        cpu = usage.ru_utime + usage.ru_stime
        lines.append({"seed": seed, "configurations": d["space"]["valid_configurations"], "measured": measured,
                      "tuner_ms_per_configuration": d["timing"]["tuner_ms_per_configuration"],
                      "process_cpu_ms_per_configuration": 1000 * cpu / measured,
                      "process_user_s": usage.ru_utime, "process_sys_s": usage.ru_stime, "process_wall_s": wall,
                      "loadavg_before": load0, "loadavg_after": os.getloadavg()})
        print(json.dumps(lines[-1]), flush=True)
    here = os.path.dirname(os.path.abspath(__file__))
    git = lambda *args: subprocess.run(["git", "-C", here, *args], capture_output=True, text=True).stdout.strip()
    with open(a.out, "w") as f:
        f.write(json.dumps({"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "host_cpus": os.cpu_count(),
                            "command": " ".join(cmd[:-4] + ["S", "-o", "OUT", "--quiet"]), "budget": a.budget,
                            "cache": a.cache or "synthetic 20,000-configuration bowl",
                            "rocm_perf_lab_commit": git("rev-parse", "HEAD"),
                            "worktree_modified": bool(git("status", "--porcelain", "--untracked-files=no"))}) + "\n")
        for l in lines:
            f.write(json.dumps(l) + "\n")


if __name__ == "__main__":
    main()
