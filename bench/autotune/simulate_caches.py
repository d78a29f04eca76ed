#!/usr/bin/env python3
"""Our search on Kernel Tuner caches it was never tuned on: `rocm-perf autotune --simulate CACHE` (the product's
path, no measured-space import, no restrictions: the cache's configurations are the space), model and random
search side by side, at P% of the valid configurations with Kernel Tuner's budget (`--budget B --max-evaluations B`,
failed configurations counted), over many seeds in parallel. One JSON line per run (cache, strategy, budget_pct,
budget, seed, evaluations, best_to_optimum, improvements [[t, ratio], ...] with t counting failed configurations,
tuner_ms_per_configuration), after a header line; then, per cache, budget and strategy, a summary line: median and
90th percentile of best/optimum, runs within 5% and 10%.

Usage: simulate_caches.py --cli build/src/cli/rocm-perf --caches A.json.gz ... --out RUNS.jsonl
         [--budgets 2 5] [--seeds 0 50] [--strategies model random] [--jobs N]
"""
import argparse
import gzip
import json
import math
import os
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from quality_runs import resume_out, run_all, run_header  # noqa: E402


def valid_count(path):
    doc = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
    return sum(1 for e in doc["cache"].values() if isinstance(e.get("time"), (int, float)))


def percentile(sorted_values, q):
    """The q-th percentile, linear between closest ranks (numpy's default)."""
    pos = (len(sorted_values) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--caches", nargs="+", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--budgets", nargs="+", type=float, default=[2, 5])
    ap.add_argument("--seeds", nargs=2, type=int, default=[0, 50], metavar=("FIRST", "COUNT"))
    ap.add_argument("--strategies", nargs="+", default=["model", "random"])
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    args = ap.parse_args()
    cli = os.path.abspath(args.cli)
    tmp = tempfile.mkdtemp(prefix="simulate_caches_")
    done = resume_out(args.out, lambda r: (r["cache"], r["strategy"], r["budget_pct"], r["seed"]) if "seed" in r
                      else None, run_header(None))
    valid = {c: valid_count(c) for c in args.caches}
    first, count = args.seeds
    tasks = [(c, s, b, seed) for c in args.caches for b in args.budgets for s in args.strategies
             for seed in range(first, first + count) if (os.path.basename(c), s, b, seed) not in done]
    tasks.sort(key=lambda t: -t[2] * valid[t[0]])
    lock = threading.Lock()

    def run(task):
        cache, strategy, pct, seed = task
        budget = math.ceil(pct / 100 * valid[cache])
        out = os.path.join(tmp, f"{os.path.basename(cache)}_{strategy}_{pct:g}_{seed}")
        p = subprocess.run([cli, "autotune", "--simulate", cache, "--budget", str(budget), "--max-evaluations",
                            str(budget), "--seed", str(seed), "--strategy", strategy, "-o", out, "--quiet"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{cache} {strategy} {pct}% seed {seed}: exit {p.returncode}: {p.stderr.strip()}")
        d = json.load(open(os.path.join(out, "autotune.json")))
        optimum = d["simulation"]["optimum"]
        improvements, best = [], math.inf
        for m in d["measurements"]:
            if m["status"] == "ok" and m["objective"] / optimum < best:
                best = m["objective"] / optimum
                improvements.append([m["sequence"] + 1, best])
        record = {"cache": os.path.basename(cache), "strategy": strategy, "budget_pct": pct, "budget": budget,
                  "seed": seed, "evaluations": len(d["measurements"]),
                  "best_to_optimum": d["simulation"]["best_to_optimum"], "improvements": improvements,
                  "tuner_ms_per_configuration": d["timing"]["tuner_ms_per_configuration"]}
        with lock, open(args.out, "a") as f:
            f.write(json.dumps(record) + "\n")
        return record

    run_all(tasks, run, args.jobs, "simulate_caches")
    cells = {}
    with open(args.out) as f:
        for r in map(json.loads, f):
            if "seed" in r:
                cells.setdefault((r["cache"], r["budget_pct"], r["strategy"]), {})[r["seed"]] = r["best_to_optimum"]
    for (cache, pct, strategy), by_seed in sorted(cells.items()):
        v = sorted(by_seed.values())
        print(json.dumps({"summary": True, "cache": cache, "budget_pct": pct, "strategy": strategy, "seeds": len(v),
                          "median": percentile(v, 0.5), "p90": percentile(v, 0.9),
                          "within_5pct": sum(x <= 1.05 for x in v), "within_10pct": sum(x <= 1.10 for x in v)}))


if __name__ == "__main__":
    main()
