#!/usr/bin/env python3
import sys, json, collections, math
sys.path.insert(0, "/work/wt-autotune/bench/autotune")
import anchor_report as ar
spaces = ar.load_spaces("/work/wt-autotune/bench/autotune/spaces")
import os
keep = os.environ.get("VARIANTS", "").split()
runs = [json.loads(l) for f in sys.argv[1:] for l in open(f)]
if keep: runs = [r for r in runs if r["variant"] in keep]
cells = collections.defaultdict(dict)
for r in runs: cells[(r["space"], r["budget_pct"])].setdefault(r["variant"], {})[r["seed"]] = r
variants = sorted({r["variant"] for r in runs})
rc = {}
pooled = collections.defaultdict(lambda: [0, 0, 0, 0.0, 0])
for (sp, b), vs in sorted(cells.items()):
    common = set.intersection(*[set(v) for v in vs.values()])
    if not common: continue
    B = math.ceil(b / 100 * len(spaces[sp]["ratios"]))
    if (sp, B) not in rc: rc[(sp, B)] = ar.random_curve(spaces[sp], B)
    rand = rc[(sp, B)]
    line = f"{sp:24s} {b}% n={len(common):2d}"
    for v in variants:
        if v not in vs: line += f" | {v}: -"; continue
        curves = [ar.best_curve(vs[v][s], B, spaces[sp]["ratios"][-1]) for s in sorted(common)]
        fin = [c[-1] for c in curves]
        mb = [sum(c[t] for c in curves) / len(curves) for t in range(B)]
        score = sum((rand[t] - mb[t]) / (rand[t] - 1) for t in range(B)) / B
        w10 = sum(f <= 1.1 for f in fin); w5 = sum(f <= 1.05 for f in fin)
        line += f" | {v}: med {ar.percentile(fin, .5):.3f} p90 {ar.percentile(fin, .9):.3f} w5 {w5} w10 {w10} sc {score:.3f} mean {sum(fin)/len(fin):.3f}"
        P = pooled[(v, b)]; P[0] += w5; P[1] += w10; P[2] += len(fin); P[3] += score; P[4] += 1
    print(line)
for (v, b), P in sorted(pooled.items(), key=lambda x: (x[0][1], x[0][0])):
    print(f"POOLED {b}% {v:12s} w5 {P[0]}/{P[2]} w10 {P[1]}/{P[2]} mean score {P[3]/P[4]:.3f} cells {P[4]}")
