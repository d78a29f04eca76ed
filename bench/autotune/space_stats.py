#!/usr/bin/env python3
"""How hard a measured space is for a search at a small budget: valid configurations, how many are within 5% and
10% of the optimum, the spread (median / optimum), and the landscape under one-parameter moves: local minima
(configurations no single-parameter change improves) and how many valid configurations steepest descent leads
to a configuration within 10% of the optimum; and the probability that random search at a budget of 2% of the
valid configurations ends within 10% (exact, sampling without replacement).

Usage: space_stats.py SPACE.json[.gz] ...
"""
import gzip
import json
import math
import sys


def random_hit_probability(valid, good, budget):
    """Probability that `budget` distinct configurations drawn uniformly from `valid` include one of `good`."""
    miss = 1.0
    for i in range(budget):
        miss *= max(0.0, (valid - good - i) / (valid - i))
    return 1.0 - miss


def stats(path):
    doc = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
    params = doc["space"]["parameters"]
    names = list(params)
    time = {tuple(r[n] for n in names): (r["time_ms"] if r["valid"] else None) for r in doc["results"]}
    valid = sorted(t for t in time.values() if t)
    best = valid[0]

    def step(c):
        nxt = c
        for i, n in enumerate(names):
            for v in params[n]:
                d = c[:i] + (v,) + c[i + 1:]
                if time.get(d) and time[d] < time[nxt]:
                    nxt = d
        return nxt

    end = {}
    for start in time:
        if not time[start]:
            continue
        trail, c = [], start
        while c not in end:
            trail.append(c)
            n = step(c)
            if n == c:
                end[c] = c
                break
            c = n
        for p in trail:
            end[p] = end[c]
    minima = sorted({e for e in end.values()}, key=lambda e: time[e])
    near = sum(t <= 1.10 * best for t in valid)
    budget = math.ceil(0.02 * len(valid))
    return {
        "space": path.split("/")[-1].split(".")[0],
        "valid": len(valid),
        "within_5pct": sum(t <= 1.05 * best for t in valid),
        "within_10pct": near,
        "median_over_best": valid[len(valid) // 2] / best,
        "local_minima": len(minima),
        "local_minima_ratios": [round(time[e] / best, 3) for e in minima],
        "descent_reaches_10pct": sum(1 for e in end.values() if time[e] <= 1.10 * best),
        "budget_2pct": budget,
        "random_p_within_10pct_at_2pct": random_hit_probability(len(valid), near, budget),
    }


if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(json.dumps(stats(p)), flush=True)
