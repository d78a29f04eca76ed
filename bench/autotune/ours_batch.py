#!/usr/bin/env python3
"""Our search (build/bench/autotune_quality, --strategy model) on every measured space and budget, for the
Kernel Tuner anchor of issue 30: one file per space and budget, OUT/SPACE_Ppct_seeds0.jsonl, in the format of
inprocess_bench.py --runs-out (a header line, then one line per seed: space, strategy "rocm-perf model",
budget_pct, budget, seed, evaluations, improvements [[t, ratio], ...] with t counting failed configurations).

Runs are cut into chunks of a few seeds spread over --jobs processes; each chunk is appended when it finishes,
so a run stopped early keeps what finished, and --resume (the default) skips the seeds a file already holds.
Cells are ordered slowest first (largest budget), seeds in blocks of 10 over every cell.

Usage: ours_batch.py --out DIR [--binary build/bench/autotune_quality | --pack .kt-anchor] [--seeds 50]
         [--first-seed 0] [--jobs 2] [--spaces NAME ...] [--budgets 2 5] [--nice 19] [--evaluations-as-budget]
--evaluations-as-budget: each run also stops after B configurations evaluated, failed ones included (B: the budget
of valid ones), as Kernel Tuner's max_fevals = B, and the search plans its phases against that limit (the product's
--budget B --max-evaluations B). Issue 30's report runs with it since 2026-11-30 (session 14).
--pack: a folder made by kt_anchor_pack.sh; its binary runs through its own loader and libraries.
On a device machine, write --out outside $OUT and pack it into one archive there (tar czf $OUT/ours.tgz -C DIR .):
the device brings back at most 8 files from $OUT, and the 28 files of a full run would be cut (2026-11-30).
"""
import argparse
import concurrent.futures
import glob
import json
import math
import os
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from quality_runs import pick_spaces, quality_command, run_header, unpack_spaces  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--binary", default="build/bench/autotune_quality")
    ap.add_argument("--pack")
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=5)
    ap.add_argument("--spaces", nargs="+")
    ap.add_argument("--budgets", nargs="+", type=int, default=[2, 5])
    ap.add_argument("--nice", type=int, default=0)
    ap.add_argument("--evaluations-as-budget", action="store_true",
                    help="the search also stops after B configurations evaluated, failed ones included (B: the budget), "
                         "and plans against that limit: the limit the report cuts every strategy at")
    args = ap.parse_args()
    command = quality_command(args.binary, args.pack, args.nice, "ours_batch")
    spaces, names = pick_spaces(args.spaces, "ours_batch")
    os.makedirs(args.out, exist_ok=True)
    plain, valid = unpack_spaces(names, spaces, tempfile.mkdtemp(prefix="ours_batch_"))
    header = run_header(args.pack)
    paths, done = {}, {}
    for n in names:
        for b in args.budgets:
            paths[(n, b)] = os.path.join(args.out, f"{n}_{b}pct_seeds0.jsonl")
            # Seeds already in any file of this cell (SPACE_Ppct_*.jsonl: seeds0, seeds5, ...) are not run again.
            done[(n, b)] = set()
            for path in glob.glob(os.path.join(args.out, f"{n}_{b}pct_*.jsonl")):
                with open(path) as f:
                    done[(n, b)] |= {r["seed"] for r in map(json.loads, f) if "seed" in r}
            with open(paths[(n, b)], "a") as f:
                f.write(json.dumps(header) + "\n")
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    cells = sorted(paths, key=lambda c: -math.ceil(c[1] / 100 * valid[c[0]]))
    tasks = []
    for block in range(0, len(seeds), 10):
        for cell in cells:
            todo = [s for s in seeds[block:block + 10] if s not in done[cell]]
            for i in range(0, len(todo), args.chunk):
                part = todo[i:i + args.chunk]
                # a chunk is a run of consecutive seeds
                while part:
                    first, n = part[0], 1
                    while n < len(part) and part[n] == first + n:
                        n += 1
                    tasks.append((cell, first, n))
                    part = part[n:]
    lock = threading.Lock()
    limit = ["--evaluations-as-budget"] if args.evaluations_as_budget else []

    def run(task):
        (space, budget), first, n = task
        p = subprocess.run(command + [plain[space], "--seeds", str(n), "--first-seed", str(first),
                                      "--budget", f"{budget}%", "--strategy", "model"] + limit, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{space} {budget}% seeds {first}+{n}: exit {p.returncode}: {p.stderr.strip()}")
        lines = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
        with lock, open(paths[(space, budget)], "a") as f:
            for r in lines:
                if r.get("summary"):
                    continue
                f.write(json.dumps({"space": space, "strategy": "rocm-perf model", "budget_pct": float(budget),
                                    "budget": f"{budget}%", "seed": r["seed"], "evaluations": r["evaluations"],
                                    "improvements": r["improvements"]}) + "\n")
        return task, [round(r["ratio"], 3) for r in lines if not r.get("summary")]

    print(f"ours_batch: {len(tasks)} chunks over {args.jobs} processes", flush=True)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for (cell, first, n), ratios in pool.map(run, tasks):
            print(f"{cell[0]} {cell[1]}% seeds {first}-{first + n - 1}: {ratios}", flush=True)


if __name__ == "__main__":
    main()
