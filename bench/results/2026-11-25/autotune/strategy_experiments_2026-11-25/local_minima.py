#!/usr/bin/env python3
"""Local minima of a measured space under one-parameter changes, and where steepest descent from every valid
configuration ends (basin sizes). Usage: local_minima.py bench/autotune/spaces/conv.json"""
import collections
import json
import sys

d = json.load(open(sys.argv[1]))
P = list(d["space"]["parameters"])
r = {tuple(x[k] for k in P): x["time_ms"] for x in d["results"] if x["valid"]}
best = min(r.values())


def neighbours(c):
    for i, p in enumerate(P):
        for v in d["space"]["parameters"][p]:
            n = c[:i] + (v,) + c[i + 1:]
            if n != c and n in r:
                yield n


minima = sorted((round(t / best, 3), c) for c, t in r.items() if all(r[n] >= t for n in neighbours(c)))
print(f"{sys.argv[1]}: {len(r)} valid, {sum(t <= 1.1 * best for t in r.values())} within 10%; parameters {P}")
print(f"{len(minima)} local minima under one-parameter changes (ratio, configuration):")
for m in minima:
    print(" ", *m)
basins = collections.Counter()
for c in r:
    x = c
    while True:
        n = min(neighbours(x), key=lambda n: r[n], default=None)
        if n is None or r[n] >= r[x]:
            break
        x = n
    basins[round(r[x] / best, 3)] += 1
print("steepest descent ends at (ratio: configurations):", sorted(basins.items()))
