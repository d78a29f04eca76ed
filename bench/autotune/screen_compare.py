#!/usr/bin/env python3
"""Compares the variants of screen_variants.py's runs with one of them (default "base"), cell by cell, on the seeds
both ran, as anchor_report.py cuts and scores runs (final ratio: best found within the budget of evaluations,
B = budget% of the valid configurations, failed ones counted; score: the methodology score over those seeds):
runs within 10% and within 2% (the issue's GEMM and dedispersion median target), mean and median final ratio, score,
seeds ending better / worse; then totals, and the six hub convolution spaces pooled (runs within 10%).

--quantiles: per cell, also the median and 90th percentile of the final ratio (linear interpolation,
anchor_report.percentile, as the report computes them) and the runs at the optimum (final ratio below 1.00001), the
quantities adoption rules state their conditions in.

Usage: screen_compare.py RUNS.jsonl [RUNS.jsonl ...] [--base base] [--cells] [--quantiles]
"""
import argparse
import collections
import json
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import anchor_report  # noqa: E402

AT_OPTIMUM = 1.00001  # a final ratio below this is the optimum (the caches' times carry rounding)
HUB_CONV = [f"kt_convolution_{g}" for g in ("A100", "A4000", "A6000", "MI250X", "W6600", "W7800")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--base", default="base")
    ap.add_argument("--cells", action="store_true", help="print every cell, not only the totals")
    ap.add_argument("--quantiles", action="store_true", help="per cell, the median, p90 and runs at the optimum too")
    ap.add_argument("--spaces-dir", default=os.path.join(HERE, "spaces"))
    args = ap.parse_args()
    spaces = anchor_report.load_spaces(args.spaces_dir)
    finals = collections.defaultdict(dict)  # (variant, space, pct) -> seed -> curve
    for path in args.runs:
        with open(path) as f:
            for r in map(json.loads, f):
                if "variant" not in r:
                    continue
                sp = spaces[r["space"]]
                budget = math.ceil(r["budget_pct"] / 100 * len(sp["ratios"]))
                finals[(r["variant"], r["space"], r["budget_pct"])][r["seed"]] = \
                    anchor_report.best_curve(r, budget, sp["ratios"][-1])
    variants = sorted({k[0] for k in finals} - {args.base})
    random_cache = {}

    def score(curves, space, pct):
        sp = spaces[space]
        budget = len(curves[0])
        if (space, pct) not in random_cache:
            random_cache[(space, pct)] = anchor_report.random_curve(sp, budget)
        rand = random_cache[(space, pct)]
        mean = [sum(c[t] for c in curves) / len(curves) for t in range(budget)]
        return sum(anchor_report.performance(mean, rand)) / budget

    for v in variants:
        tot = collections.Counter()
        pooled = collections.Counter()
        lines = []
        for (name, space, pct), runs in sorted(finals.items()):
            if name != v or (args.base, space, pct) not in finals:
                continue
            base = finals[(args.base, space, pct)]
            seeds = sorted(set(runs) & set(base))
            if not seeds:
                continue
            fv = [runs[s][-1] for s in seeds]
            fb = [base[s][-1] for s in seeds]
            sv = score([runs[s] for s in seeds], space, pct)
            sb = score([base[s] for s in seeds], space, pct)
            w10v, w10b = sum(f <= 1.10 for f in fv), sum(f <= 1.10 for f in fb)
            w2v, w2b = sum(f <= 1.02 for f in fv), sum(f <= 1.02 for f in fb)
            better = sum(a < b - 1e-12 for a, b in zip(fv, fb))
            worse = sum(a > b + 1e-12 for a, b in zip(fv, fb))
            tot.update(runs=len(seeds), w10v=w10v, w10b=w10b, w2v=w2v, w2b=w2b, better=better, worse=worse,
                       score_won=int(sv > sb + 1e-9), score_lost=int(sv < sb - 1e-9))
            tot["score_sum_v"] += sv
            tot["score_sum_b"] += sb
            tot["cells"] += 1
            if space in HUB_CONV:
                pooled[(pct, "v")] += w10v
                pooled[(pct, "b")] += w10b
                pooled[(pct, "n")] += len(seeds)
            lines.append(f"  {space:24s} {pct:g}% n={len(seeds)}: within 10% {w10v} vs {w10b}; within 2% {w2v} vs {w2b}; "
                         f"mean {statistics.mean(fv):.4f} "
                         f"vs {statistics.mean(fb):.4f}; median {statistics.median(fv):.4f} vs {statistics.median(fb):.4f}; "
                         f"score {sv:.3f} vs {sb:.3f}; seeds better/worse {better}/{worse}")
            if args.quantiles:
                q = {n: [anchor_report.percentile(f, p) for p in (0.5, 0.9)] for n, f in (("v", fv), ("b", fb))}
                at_v, at_b = sum(f < AT_OPTIMUM for f in fv), sum(f < AT_OPTIMUM for f in fb)
                tot.update(at_v=at_v, at_b=at_b)
                lines.append(f"    median {q['v'][0]:.5f} vs {q['b'][0]:.5f}; p90 {q['v'][1]:.5f} vs {q['b'][1]:.5f}; "
                             f"at the optimum {at_v} vs {at_b}")
        if not tot["cells"]:
            continue
        print(f"{v} vs {args.base}: {tot['runs']} runs in {tot['cells']} cells; within 10% {tot['w10v']} vs {tot['w10b']}; "
              f"within 2% {tot['w2v']} vs {tot['w2b']}; "
              f"seeds better/worse {tot['better']}/{tot['worse']}; score cells won/lost {tot['score_won']}/{tot['score_lost']}; "
              f"mean score {tot['score_sum_v'] / tot['cells']:.3f} vs {tot['score_sum_b'] / tot['cells']:.3f}")
        for pct in sorted({k[0] for k in pooled}):
            print(f"  hub convolution pooled {pct:g}%: within 10% {pooled[(pct, 'v')]} vs {pooled[(pct, 'b')]} of {pooled[(pct, 'n')]}")
        if args.quantiles:
            print(f"  runs at the optimum: {tot['at_v']} vs {tot['at_b']}")
        if args.cells:
            print("\n".join(lines))


if __name__ == "__main__":
    main()
