#!/usr/bin/env python3
"""pairwise.py RUNS.jsonl [...]: every variant against base on the runs both finished (same space, budget, seed).
Per variant: runs, within 5% / 10% (best / optimum), mean methodology score over the cells (curves and score as in
bench/autotune/anchor_report.py), cells won / lost on within-10%, and the seeds whose final ratio (at the matched
budget of evaluations) is lower / higher than base's. Per cell: within 10%, variant vs base, and the mean final ratio."""
import sys, json, collections, math, os
BENCH = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../../../autotune"))
sys.path.insert(0, BENCH)
import anchor_report as ar
spaces = ar.load_spaces(os.path.join(BENCH, "spaces"))
runs = [json.loads(l) for f in sys.argv[1:] for l in open(f)]
by = collections.defaultdict(dict)
for r in runs: by[(r["variant"], r["space"], r["budget_pct"])][r["seed"]] = r
variants = sorted({r["variant"] for r in runs} - {"base"})
rc = {}
def stats(sp, b, recs):
    B = math.ceil(b / 100 * len(spaces[sp]["ratios"]))
    if (sp, B) not in rc: rc[(sp, B)] = ar.random_curve(spaces[sp], B)
    rand = rc[(sp, B)]
    curves = [ar.best_curve(r, B, spaces[sp]["ratios"][-1]) for r in recs]
    fin = [c[-1] for c in curves]
    mb = [sum(c[t] for c in curves) / len(curves) for t in range(B)]
    return sum(f <= 1.05 for f in fin), sum(f <= 1.1 for f in fin), sum((rand[t] - mb[t]) / (rand[t] - 1) for t in range(B)) / B, fin
for v in variants:
    tot = collections.Counter(); cells = []; won = lost = 0; sv = sb = 0.0
    for (vv, sp, b), seeds in sorted(by.items()):
        if vv != v or ("base", sp, b) not in by: continue
        common = sorted(set(seeds) & set(by[("base", sp, b)]))
        if not common: continue
        w5v, w10v, scv, fv = stats(sp, b, [seeds[s] for s in common])
        w5b, w10b, scb, fb = stats(sp, b, [by[("base", sp, b)][s] for s in common])
        tot["better"] += sum(x < y for x, y in zip(fv, fb)); tot["worse"] += sum(x > y for x, y in zip(fv, fb))
        tot["runs"] += len(common); tot["w5v"] += w5v; tot["w10v"] += w10v; tot["w5b"] += w5b; tot["w10b"] += w10b
        sv += scv; sb += scb; won += w10v > w10b; lost += w10v < w10b
        cells.append(f"{sp.replace('kt_convolution_', '')} {b}% n={len(common)}: {w10v} vs {w10b}, mean {sum(fv) / len(fv):.4f} vs {sum(fb) / len(fb):.4f}")
    n = len(cells)
    if not n: continue
    print(f"{v:9s} vs base: {tot['runs']} runs in {n} cells; within 10% {tot['w10v']} vs {tot['w10b']}; within 5% {tot['w5v']} vs {tot['w5b']}; "
          f"mean score {sv / n:.3f} vs {sb / n:.3f}; cells won/lost on within 10%: {won}/{lost}; seeds better/worse {tot['better']}/{tot['worse']}")
    print("           " + "; ".join(cells))
