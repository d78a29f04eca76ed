#!/usr/bin/env python3
"""For each runs file of our search (ours_batch.py's format, one cell each), how many runs that did not end at the
optimum ended at a configuration with a better *iso-product swap*: a configuration of the space that differs from it
in exactly two numeric parameters whose values' product is the same (all four values positive), e.g.
tile_size_x=4, tile_size_y=2 against 2, 4. The final configuration is found from the run's last ratio (the first
configuration of the space with that ratio, to 9 decimals). Prints a line per runs file: the runs not at the optimum,
those with a better swap, and the ratios of the best such swaps (up to 8).

Usage: swap_neighbours.py RUNS_DIR    (e.g. bench/results/2026-11-30/autotune/issue30_evaluations_limit_2026-11-30/report/ours_runs)
"""
import argparse
import glob
import gzip
import itertools
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from inprocess_bench import all_spaces  # noqa: E402


def numeric(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs_dir")
    args = ap.parse_args()
    spaces = all_spaces()
    files = sorted(glob.glob(os.path.join(args.runs_dir, "*.jsonl")))
    if not files:
        sys.exit(f"swap_neighbours: no .jsonl runs file in {args.runs_dir}")
    print(f"# swap_neighbours.py {args.runs_dir}")
    for f in files:
        runs = [r for r in (json.loads(line) for line in open(f)) if not r.get("header")]
        name = runs[0]["space"]
        if name not in spaces:
            continue
        path = spaces[name]
        doc = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
        space = doc["space"]
        space = eval(space) if isinstance(space, str) else space  # noqa: S307 (the imported spaces write a Python literal)
        keys = list(space["parameters"])
        valid = [x for x in doc["results"] if x["valid"]]
        best = min(x["time_ms"] for x in valid)
        ratio = {tuple(x[k] for k in keys): x["time_ms"] / best for x in valid}
        by_ratio = {}
        for config, r in ratio.items():
            by_ratio.setdefault(round(r, 9), config)
        not_optimal = with_swap = 0
        gains = []
        for run in runs:
            final = run["improvements"][-1][1]
            if final <= 1.0 + 1e-9 or round(final, 9) not in by_ratio:
                continue
            config = by_ratio[round(final, 9)]
            not_optimal += 1
            swaps = []
            for i, j in itertools.combinations(range(len(keys)), 2):
                a, b = config[i], config[j]
                if not (numeric(a) and numeric(b)):
                    continue
                for va in space["parameters"][keys[i]]:
                    for vb in space["parameters"][keys[j]]:
                        if va != a and vb != b and numeric(va) and numeric(vb) and va * vb == a * b:
                            other = list(config)
                            other[i], other[j] = va, vb
                            if tuple(other) in ratio:
                                swaps.append(ratio[tuple(other)])
            if swaps and min(swaps) < final - 1e-9:
                with_swap += 1
                gains.append(round(min(swaps), 3))
        print(f"{os.path.basename(f):45s} not-optimal runs {not_optimal:3d}, a better iso-product swap {with_swap:3d}",
              sorted(gains)[:8])


if __name__ == "__main__":
    main()
