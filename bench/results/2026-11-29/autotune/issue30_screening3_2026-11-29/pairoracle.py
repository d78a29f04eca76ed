"""For the runs of the earlier screening (../issue30_search_2026-11-29/screening/)'s base (seeds 200-209, 300-309, 2%) that end above 1.10: the end
configuration (found by its ratio), and where a better Hamming-2 neighbour within 10% of the optimum ranks
among its unmeasured-or-not Hamming-2 neighbours by the additive estimate t(p) * t(q) / t(x) from the true
one-parameter neighbours (both singles valid). Per failing run: final ratio, number of such pairs, the ranks (0 =
best estimate) of the first three pairs within THRESHOLD of the optimum, and of the first three pairs better than
the end configuration."""
import json, sys, collections, math, itertools, os
# usage: pairoracle.py [THRESHOLD]   (default 1.10; 1.05 for GEMM's 90th-percentile question)
T = float(sys.argv[1]) if len(sys.argv) > 1 else 1.10
S = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../issue30_search_2026-11-29/screening/")
runs = [json.loads(l) for f in ("tune.jsonl", "tune_hold.jsonl") for l in open(S + f)]
runs = [r for r in runs if r["variant"] == "base" and r["budget_pct"] == 2]
cache = {}
def load(sp):
    if sp in cache: return cache[sp]
    d = json.load(open(f"/tmp/at31/spaces/{sp}.json")); names = list(d["space"]["parameters"].keys())
    levels = [sorted(v) if isinstance(v, list) else v for v in d["space"]["parameters"].values()]
    valid = {tuple(r[n] for n in names): r["time_ms"] for r in d["results"] if r["valid"] and r["time_ms"] > 0}
    cache[sp] = (names, levels, valid, min(valid.values())); return cache[sp]
stat = collections.Counter(); ranks = collections.defaultdict(list)
for r in runs:
    sp = r["space"]; names, levels, valid, opt = load(sp)
    fin = r["improvements"][-1][1]
    if fin <= T: continue
    x = min(valid, key=lambda k: abs(valid[k] / opt - fin))
    tx = valid[x]; n = len(names)
    est = []
    for p, q in itertools.combinations(range(n), 2):
        for a in levels[p]:
            if a == x[p]: continue
            for b in levels[q]:
                if b == x[q]: continue
                c = list(x); c[p] = a; c[q] = b; c = tuple(c)
                if c not in valid: continue
                sp_ = list(x); sp_[p] = a; sq = list(x); sq[q] = b
                tp, tq = valid.get(tuple(sp_)), valid.get(tuple(sq))
                if tp is None or tq is None: continue
                est.append((tp * tq / tx, valid[c] / opt, (names[p], names[q])))
    est.sort()
    good = [i for i, e in enumerate(est) if e[1] <= T]
    better = [i for i, e in enumerate(est) if e[1] < fin]
    ranks[sp].append((round(fin, 3), len(est), good[:3], better[:3]))
for sp, v in ranks.items():
    print(sp, "failing runs", len(v)); [print("   end", *e) for e in v]
