#!/usr/bin/env python3
"""Tabulates screening runs (screen.py output): per variant, budget and space, seeds, runs within 5% and 10%,
median ratio; and per variant and budget the pooled counts over the spaces every variant of that budget ran."""
import collections, json, statistics, sys
rows = collections.defaultdict(list)
for path in sys.argv[1:]:
    for r in map(json.loads, open(path)):
        rows[(r["variant"], r["budget_pct"], r["space"])].append(r["ratio"])
print("| variant | budget | space | seeds | within 5% | within 10% | median | worst |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for (v, b, s), x in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0])):
    print(f"| {v} | {b}% | {s} | {len(x)} | {sum(t <= 1.05 for t in x)} | {sum(t <= 1.10 for t in x)} | "
          f"{statistics.median(x):.3f} | {max(x):.3f} |")
print()
by_budget = collections.defaultdict(lambda: collections.defaultdict(dict))
for (v, b, s), x in rows.items():
    by_budget[b][s][v] = x
print("Pooled over the spaces where every variant of the budget has the same seed count:")
print()
print("| budget | variant | spaces | runs | within 5% | within 10% |")
print("| --- | --- | --- | --- | --- | --- |")
for b, spaces in sorted(by_budget.items()):
    variants = sorted({v for cell in spaces.values() for v in cell})
    for v in variants:
        common = [s for s, cell in spaces.items() if all(w in cell for w in variants)
                  and len({len(x) for x in cell.values()}) == 1]
        xs = [t for s in common for t in spaces[s][v]]
        if xs:
            print(f"| {b}% | {v} | {len(common)} | {len(xs)} | {sum(t <= 1.05 for t in xs)} | "
                  f"{sum(t <= 1.10 for t in xs)} |")
