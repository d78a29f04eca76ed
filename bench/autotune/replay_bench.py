#!/usr/bin/env python3
"""Autotune quality and overhead benchmark, without a GPU.

Quality: replays the exhaustively measured spaces (bench/autotune/spaces/*.json, measured on the GPU by
gpu/measure_spaces.sh) through the stand-in command (tests/doubles/autotune_standin, which looks the
configuration's measured time up), so `rocm-perf autotune` runs its real per-process path. For each space and
seed: --strategy model and --strategy random at a budget of 2% of the valid configurations; the ratio of the
best found to the true optimum.

Overhead: a synthetic space of 20,000 configurations (a smooth objective with noise), --strategy model at 2%,
the tuner's own time per configuration (autotune.json timing.tuner_ms_per_configuration).

Usage: replay_bench.py --build build --seeds 25 [--first-seed 25] --out RESULTS.json
(--first-seed 25 --seeds 25: the hold-out seeds 25-49, to check a change is not tuned to seeds 0-24.)
"""
import argparse
import datetime
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run_autotune(cli, standin, space_file, table, names, strategy, budget, seed, workdir):
    template = f"{standin} {table} " + " ".join(f"{n}={{{n}}}" for n in names)
    cmd = [cli, "autotune", "--space", space_file, "--cmd-template", template, "--objective", "stdout",
           "--objective-regex", r"time_ms: (\S+)", "--budget", str(budget), "--strategy", strategy,
           "--seed", str(seed), "-o", workdir, "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"autotune failed ({p.returncode}): {p.stderr}")
    return json.loads(p.stdout)


def quality(args, cli, standin, tmp):
    rows = []
    for name in args.spaces:
        measured = json.load(open(os.path.join(HERE, "spaces", f"{name}.json")))
        space_file = os.path.join(tmp, f"{name}.space.json")
        table = os.path.join(tmp, f"{name}.csv")
        subprocess.run([sys.executable, os.path.join(HERE, "make_tables.py"),
                        os.path.join(HERE, "spaces", f"{name}.json"), space_file, table], check=True)
        names = list(measured["space"]["parameters"])
        valid = [r["time_ms"] for r in measured["results"] if r.get("valid")]
        optimum = min(valid)
        budget = math.ceil(0.02 * len(valid))
        for strategy in ("model", "random"):
            ratios, invalid, r2 = [], [], []
            seeds = list(range(args.first_seed, args.first_seed + args.seeds))
            for seed in seeds:
                d = run_autotune(cli, standin, space_file, table, names, strategy, budget, seed,
                                 os.path.join(tmp, "out"))
                if d["space"]["valid_configurations"] != measured["configurations_compiled"]:
                    sys.exit(f"{name}: the tuner enumerates {d['space']['valid_configurations']} configurations, "
                             f"{measured['configurations_compiled']} were measured")
                ratios.append(d["best"]["objective"] / optimum)
                invalid.append(d["budget"]["invalid"])
                if d["model"] and d["model"]["cv_r2"] is not None:
                    r2.append(d["model"]["cv_r2"])
            rows.append({"space": name, "strategy": strategy, "valid_configurations": len(valid),
                         "budget": budget, "seeds": args.seeds, "first_seed": args.first_seed, "optimum_ms": optimum,
                         "median_ratio": statistics.median(ratios), "worst_ratio": max(ratios),
                         "best_ratio": min(ratios),
                         "within_5pct": sum(1 for r in ratios if r <= 1.05),
                         "within_10pct": sum(1 for r in ratios if r <= 1.10),
                         "found_optimum": sum(1 for r in ratios if r == 1.0),
                         "mean_invalid_measured": statistics.mean(invalid),
                         "median_cv_r2": statistics.median(r2) if r2 else None, "ratios": ratios})
            print(f"{name:5} {strategy:6} budget {budget} ({len(valid)} valid): median {rows[-1]['median_ratio']:.4f}, "
                  f"worst {rows[-1]['worst_ratio']:.4f}, within 10% {rows[-1]['within_10pct']}/{args.seeds}, optimum found {rows[-1]['found_optimum']}/{args.seeds}",
                  flush=True)
    return rows


def overhead(args, cli, standin, tmp):
    # 20,000 configurations: A, B in 25 values, C in 32 values (20,000 = 25*25*32), smooth bowl plus noise.
    import random
    rng = random.Random(7)
    names = ["A", "B", "C"]
    va, vb, vc = list(range(1, 26)), list(range(1, 26)), list(range(1, 33))
    space_file = os.path.join(tmp, "synthetic.space.json")
    table = os.path.join(tmp, "synthetic.csv")
    json.dump({"parameters": {"A": va, "B": vb, "C": vc}, "restrictions": []}, open(space_file, "w"))
    with open(table, "w") as f:
        f.write("A,B,C,time_ms\n")
        for a in va:
            for b in vb:
                for c in vc:
                    t = 1.0 + 0.01 * (a - 17) ** 2 + 0.02 * (b - 6) ** 2 + 0.005 * (c - 20) ** 2 + 0.05 * rng.random()
                    f.write(f"{a},{b},{c},{t:.6f}\n")
    per_config = []
    for seed in range(args.overhead_seeds):
        d = run_autotune(cli, standin, space_file, table, names, "model", "2%", seed, os.path.join(tmp, "out"))
        per_config.append(d["timing"]["tuner_ms_per_configuration"])
        print(f"overhead seed {seed}: {d['space']['valid_configurations']} configurations, "
              f"{len(d['measurements'])} measured, tuner {d['timing']['tuner_seconds']:.2f} s = "
              f"{per_config[-1]:.2f} ms per configuration", flush=True)
    return {"configurations": 20000, "budget": "2%", "seeds": args.overhead_seeds,
            "tuner_ms_per_configuration": per_config, "median_ms": statistics.median(per_config),
            "max_ms": max(per_config)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--seeds", type=int, default=25)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--overhead-seeds", type=int, default=3)
    ap.add_argument("--spaces", nargs="+", default=["gemm", "conv"])
    ap.add_argument("--no-quality", action="store_true")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    cli = os.path.abspath(os.path.join(args.build, "src/cli/rocm-perf"))
    standin = os.path.abspath(os.path.join(args.build, "tests/doubles/bin/autotune_standin"))
    with tempfile.TemporaryDirectory() as tmp:
        doc = {"date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
               "host": os.uname().nodename, "cpus": os.cpu_count(),
               "command": " ".join(sys.argv)}
        if not args.no_quality:
            doc["quality"] = quality(args, cli, standin, tmp)
        doc["overhead"] = overhead(args, cli, standin, tmp)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
