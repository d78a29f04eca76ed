#!/usr/bin/env python3
"""Search quality over every measured space, in-process (build/bench/autotune_quality), for comparing search
variants over many spaces and seeds: our two H100 spaces (bench/autotune/spaces/{gemm,conv}.json) and the
brute-forced Kernel Tuner spaces (bench/autotune/spaces/kernel_tuner/*.json.gz: convolution and dedispersion on
A100, A4000, A6000, MI250X, W6600, W7800). Strategy model and random at a budget of 2% of the valid
configurations; ratio = best found / true optimum, as in replay_bench.py.

Usage: inprocess_bench.py --out RESULTS.json [--build build] [--seeds 25] [--first-seed 0] [--jobs 2]
                          [--spaces NAME ...] [--strategies model random] [--budget 2%] [--runs-out RUNS.jsonl]
--runs-out: also every seed's curve, one JSON line per run in kernel_tuner_anchor.py's format (strategy
"rocm-perf model" / "rocm-perf random"; improvements [[t, ratio], ...] with t counting failed configurations
too), for anchor_report.py.
Environment variables are passed through (for experimental switches of a patched build).
"""
import argparse
import concurrent.futures
import datetime
import glob
import gzip
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


UNSEEN = "unseen_"


def all_spaces():
    spaces = {n: os.path.join(HERE, "spaces", f"{n}.json") for n in ("gemm", "conv")}
    for p in sorted(glob.glob(os.path.join(HERE, "spaces", "kernel_tuner", "*.json.gz"))):
        spaces["kt_" + os.path.basename(p)[: -len(".json.gz")]] = p
    # Spaces no search change was screened on (issue 30's report leaves them out unless asked for by name).
    for p in sorted(glob.glob(os.path.join(HERE, "spaces", "unseen", "*.json.gz"))):
        spaces[UNSEEN + os.path.basename(p)[: -len(".json.gz")]] = p
    return spaces


def run_one(binary, path, strategy, args):
    data = gzip.open(path, "rb").read() if path.endswith(".gz") else open(path, "rb").read()
    cmd = [binary, "-", "--seeds", str(args.seeds), "--first-seed", str(args.first_seed), "--budget", args.budget,
           "--strategy", strategy]
    p = subprocess.run(cmd, input=data, capture_output=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} < {path}: exit {p.returncode}: {p.stderr.decode()}")
    lines = [json.loads(l) for l in p.stdout.decode().splitlines() if l.strip()]
    summary = lines[-1]
    summary["ratios"] = [l["ratio"] for l in lines[:-1]]
    summary["runs"] = lines[:-1]
    summary["mean_invalid_measured"] = statistics.mean(l["invalid_measured"] for l in lines[:-1])
    return summary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--seeds", type=int, default=25)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--budget", default="2%")
    ap.add_argument("--spaces", nargs="+")
    ap.add_argument("--strategies", nargs="+", default=["model", "random"])
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs-out")
    args = ap.parse_args()
    binary = os.path.abspath(os.path.join(args.build, "bench", "autotune_quality"))
    spaces = all_spaces()
    names = args.spaces or [n for n in spaces if not n.startswith(UNSEEN)]
    jobs = [(n, s) for n in names for s in args.strategies]
    rows = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_one, binary, spaces[n], s, args): (n, s) for n, s in jobs}
        for f in concurrent.futures.as_completed(futures):
            n, s = futures[f]
            r = f.result()
            rows[(n, s)] = r
            print(f"{n:26} {s:6} median {r['median']:.3f} worst {r['worst']:.3f} within5 {r['within_5pct']:2} "
                  f"within10 {r['within_10pct']:2}/{r['seeds']}", flush=True)
    doc = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "host": os.uname().nodename, "command": " ".join(sys.argv),
           "switches": {k: v for k, v in os.environ.items() if k.startswith("RPL_AT_")},
           "results": [dict(space=n, strategy=s, **{k: v for k, v in rows[(n, s)].items() if k != "runs"})
                       for n, s in jobs]}
    if args.runs_out:
        pct = float(args.budget.rstrip("%")) if args.budget.endswith("%") else None
        with open(args.runs_out, "w") as f:
            f.write(json.dumps({"header": True, "date": doc["date"], "host": doc["host"], "cpus": os.cpu_count(),
                                "command": doc["command"], "rocm_perf_lab_commit": subprocess.run(
                                    ["git", "-C", HERE, "rev-parse", "HEAD"], capture_output=True,
                                    text=True).stdout.strip()}) + "\n")
            for n, s in jobs:
                for run in rows[(n, s)]["runs"]:
                    f.write(json.dumps({"space": n, "strategy": f"rocm-perf {s}", "budget_pct": pct,
                                        "budget": args.budget, "seed": run["seed"], "evaluations": run["evaluations"],
                                        "improvements": run["improvements"]}) + "\n")
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
