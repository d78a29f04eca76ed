#!/usr/bin/env python3
"""Where in the budget a strategy gains or loses the methodology score: for each cell asked, per strategy, P(t) =
(random(t) - best(t)) / (random(t) - optimum) at a few points of the budget (2%, 5%, 10%, 20%, 40%, 60%, 80%, 100%
of it) beside the mean best / optimum there, and the score (P averaged over t = 1..B), runs read, cut and scored
as anchor_report.py does (seeds 0-49).

Usage: score_points.py --runs RUNS.jsonl ... --cells SPACE:PCT ... [--strategies NAME ...] [--at T ...]
         [--spaces-dir DIR]
--at: these evaluation counts instead of the shares of the budget (those beyond the budget are left out).
"""
import argparse
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import anchor_report  # noqa: E402

POINTS = (0.02, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", nargs="+", required=True)
    ap.add_argument("--cells", nargs="+", required=True, help="SPACE:PCT, e.g. kt_dedispersion_A100:5")
    ap.add_argument("--strategies", nargs="+")
    ap.add_argument("--at", nargs="+", type=int, help="evaluation counts to report P(t) at")
    ap.add_argument("--spaces-dir", default=os.path.join(HERE, "spaces"))
    args = ap.parse_args()
    cells = []
    for c in args.cells:
        space, _, pct = c.partition(":")
        try:
            cells.append((space, float(pct)))
        except ValueError:
            sys.exit(f"score_points: --cells {c}: expected SPACE:PCT")
    spaces = anchor_report.load_spaces(args.spaces_dir)
    unknown = [s for s, _ in cells if s not in spaces]
    if unknown:
        sys.exit(f"score_points: unknown space(s) {', '.join(unknown)}")
    runs = {}
    for r in anchor_report.load_runs(args.runs, 50)[0]:
        runs.setdefault((r["space"], float(r["budget_pct"]), r["strategy"]), {})[r["seed"]] = r
    for space, pct in cells:
        s = spaces[space]
        budget = math.ceil(pct / 100 * len(s["ratios"]))
        rnd = anchor_report.random_curve(s, budget)
        worst = s["ratios"][-1]
        points = sorted({t for t in args.at if 1 <= t <= budget} if args.at else
                        {max(1, int(budget * q)) for q in POINTS})
        print(f"{space} {pct:g}% (B = {budget}); points t = {', '.join(map(str, points))}")
        names = args.strategies or sorted({k[2] for k in runs if k[:2] == (space, pct)})
        for name in names:
            rs = runs.get((space, pct, name))
            if not rs:
                continue
            curves = [anchor_report.best_curve(r, budget, worst) for r in rs.values()]
            mean = [statistics.mean(c[t] for c in curves) for t in range(budget)]
            p = anchor_report.performance(mean, rnd)
            print(f"  {name:24s} seeds {len(rs)} score {statistics.mean(p):.3f}  P(t) "
                  + " ".join(f"{p[t - 1]:.2f}" for t in points) + "  mean best/optimum "
                  + " ".join(f"{mean[t - 1]:.4f}" for t in points))


if __name__ == "__main__":
    main()
