#!/usr/bin/env python3
"""Compares inprocess_bench.py result files side by side: per space, seeds within 10% (within 5%) and the
geometric mean of the ratios; totals over the spaces every file has.

Usage: compare_runs.py RESULTS.json ...   (strategy model rows; the file's name labels its column)
"""
import json
import math
import os
import sys


def main():
    runs = []
    for p in sys.argv[1:]:
        d = json.load(open(p))
        runs.append((os.path.basename(p).replace(".json", ""),
                     {r["space"]: r for r in d["results"] if r["strategy"] == "model"}))
    spaces = [s for s in runs[0][1] if all(s in r for _, r in runs)]
    print(f"{'space':24}" + "".join(f"{n[:18]:>20}" for n, _ in runs))
    totals = [[0, 0, 0.0, 0] for _ in runs]
    for s in spaces:
        cells = []
        for i, (_, rows) in enumerate(runs):
            r = rows[s]
            log_sum = sum(math.log(x) for x in r["ratios"])
            cells.append(f"{r['within_10pct']:>3}({r['within_5pct']:>2}) {math.exp(log_sum / len(r['ratios'])):.3f} "
                         f"{r['worst']:.2f}")
            totals[i][0] += r["within_10pct"]
            totals[i][1] += r["within_5pct"]
            totals[i][2] += log_sum
            totals[i][3] += len(r["ratios"])
        print(f"{s[:24]:24}" + "".join(f"{c:>20}" for c in cells))
    print(f"{'total':24}" + "".join(f"{f'{t[0]:>3}({t[1]:>3}) {math.exp(t[2] / t[3]):.3f}':>20}" for t in totals))


if __name__ == "__main__":
    main()
