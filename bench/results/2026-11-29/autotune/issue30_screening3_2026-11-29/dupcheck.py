"""Per space: valid / invalid configurations, and per parameter the share of pairs of valid configurations that differ
only in it and run within 1% of each other (duplicate-equivalent measurements a dedup could skip)."""
import json, sys, collections, math
for sp in sys.argv[1:]:
    d = json.load(open(f"/tmp/at31/spaces/{sp}.json"))
    names = list(d["space"]["parameters"].keys())
    rows = d["results"]
    valid = {tuple(r[n] for n in names): r["time_ms"] for r in rows if r["valid"] and r["time_ms"] > 0}
    inval = sum(1 for r in rows if not (r["valid"] and r["time_ms"] > 0))
    out = []
    for p, n in enumerate(names):
        groups = collections.defaultdict(list)
        for k, t in valid.items(): groups[k[:p] + k[p+1:]].append(t)
        pairs = close = 0
        for g in groups.values():
            for i in range(len(g)):
                for j in range(i + 1, len(g)):
                    pairs += 1; close += abs(math.log(g[i] / g[j])) < 0.01
        out.append(f"{n} {close}/{pairs}")
    opt = min(valid.values())
    print(f"{sp}: valid {len(valid)}, invalid {inval}, within 10% of optimum {sum(t <= 1.1*opt for t in valid.values())}; pairs within 1% per parameter: " + ", ".join(out))
