#!/usr/bin/env python3
"""The product reproduces the report's runs: `rocm-perf autotune --simulate` with Kernel Tuner's budget
(`--max-evaluations B`, failed configurations counted; `--budget B` valid ones, as the report's runs had) against the
runs of ours in an anchor_report.py input (cut there at B evaluations). For each space, budget and seed asked for,
the measured space is written as a Kernel Tuner cache, the product is run on it with `--space` (the measured space's
definition, so its configurations come in the same order), and its best / optimum is compared with the run's.

Usage: simulate_vs_report.py --cli build/src/cli/rocm-perf --runs DIR/*.jsonl --spaces NAME ... [--budgets 2]
         [--seeds 0 1 2] [--out FILE]
Prints one line per run and a final count; exit 1 when any differs.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from kernel_tuner_anchor import load_space, write_cache  # noqa: E402  (the measured space as a Kernel Tuner cache)
from quality_runs import pick_spaces, run_header  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--runs", nargs="+", required=True)
    ap.add_argument("--spaces", nargs="+", required=True)
    ap.add_argument("--budgets", nargs="+", type=int, default=[2])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--out")
    args = ap.parse_args()
    spaces, _ = pick_spaces(args.spaces, "simulate_vs_report", list_known=True)
    report = {}
    for path in args.runs:
        with open(path) as f:
            for r in map(json.loads, f):
                if r.get("strategy") == "rocm-perf model":
                    report.setdefault((r["space"], int(r["budget_pct"]), r["seed"]), r)
    work = tempfile.mkdtemp(prefix="simulate_vs_report_")
    lines = [json.dumps(run_header(None))]
    differ = 0
    for name in args.spaces:
        doc = load_space(spaces[name])
        cache_path, _, _, optimum = write_cache(doc, name, work)
        space_path = os.path.join(work, name + "_space.json")
        with open(space_path, "w") as f:
            json.dump(doc["space"], f)
        valid = [r["time_ms"] for r in doc["results"] if r["valid"]]
        for pct in args.budgets:
            budget = math.ceil(pct / 100 * len(valid))
            for seed in args.seeds:
                run = report.get((name, pct, seed))
                if run is None:
                    sys.exit(f"simulate_vs_report: no run of ours for {name} {pct}% seed {seed} in --runs")
                expected = min((ratio for t, ratio in run["improvements"] if t <= budget), default=None)
                out = os.path.join(work, f"{name}_{pct}_{seed}")
                p = subprocess.run([args.cli, "autotune", "--simulate", cache_path, "--space", space_path, "--budget",
                                    str(budget), "--max-evaluations", str(budget), "--seed", str(seed), "-o", out,
                                    "--json", "--quiet"], capture_output=True, text=True)
                if p.returncode != 0:
                    sys.exit(f"simulate_vs_report: {name} {pct}% seed {seed}: exit {p.returncode}: {p.stderr.strip()}")
                d = json.loads(p.stdout)
                got = d["best"]["objective"] / optimum
                same = expected is not None and abs(got - expected) <= 1e-9 * expected
                differ += 0 if same else 1
                lines.append(json.dumps({"space": name, "budget_pct": pct, "budget": budget, "seed": seed,
                                         "evaluations": len(d["measurements"]), "stop_reason": d["budget"]["stop_reason"],
                                         "product_ratio": got, "report_ratio": expected, "same": same}))
    lines.append(json.dumps({"summary": True, "runs": len(lines) - 1, "differ": differ}))
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
