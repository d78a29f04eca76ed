#!/usr/bin/env python3
"""How many of our runs improved only after the report's cut: per cell, the runs whose best ratio after all their
evaluations is lower than their best within B evaluations (B = budget% of the valid configurations, failed ones
counted, as anchor_report.py cuts every strategy at Kernel Tuner's max_fevals = B), and how many runs were within
10% before and after the cut. A run made without --evaluations-as-budget goes on past B evaluations when it measured
failed configurations; what it found there is not counted in the report.

Usage: after_cut.py RUNS.jsonl ... [--spaces-dir bench/autotune/spaces]   (ours_batch.py's files)
"""
import argparse
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import anchor_report  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--spaces-dir", default=os.path.join(HERE, "spaces"))
    args = ap.parse_args()
    spaces = anchor_report.load_spaces(args.spaces_dir)
    cells = {}
    for path in args.runs:
        with open(path) as f:
            for r in map(json.loads, f):
                if "improvements" in r:
                    cells.setdefault((r["space"], float(r["budget_pct"])), {})[r["seed"]] = r
    print("space budget B runs evaluations_median improved_after_cut within10_at_cut within10_uncut")
    for (space, pct), runs in sorted(cells.items()):
        budget = math.ceil(pct / 100 * len(spaces[space]["ratios"]))
        after = at_cut = uncut = 0
        for r in runs.values():
            cut = min((ratio for t, ratio in r["improvements"] if t <= budget), default=math.inf)
            full = min(ratio for _, ratio in r["improvements"])
            after += full < cut
            at_cut += cut <= 1.10
            uncut += full <= 1.10
        evaluations = sorted(r["evaluations"] for r in runs.values())[len(runs) // 2]
        print(f"{space} {pct:g}% {budget} {len(runs)} {evaluations} {after} {at_cut} {uncut}")


if __name__ == "__main__":
    main()
