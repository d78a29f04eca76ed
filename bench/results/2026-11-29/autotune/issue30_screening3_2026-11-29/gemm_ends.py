"""gemm_ends.py RUNS.jsonl ...: GEMM 2%, per variant and file (seeds 400-409 only in tune.jsonl, where base also has 410-419), the final ratios (at the matched budget of evaluations) counted by value."""
import json, sys, collections, math, os
BENCH = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../../autotune"))
sys.path.insert(0, BENCH)
import anchor_report as ar
spaces = ar.load_spaces(os.path.join(BENCH, "spaces"))
B = math.ceil(0.02 * len(spaces["gemm"]["ratios"]))
for f in sys.argv[1:]:
    fin = collections.defaultdict(list)
    for l in open(f):
        r = json.loads(l)
        if r["space"] == "gemm" and (r["seed"] < 410 or r["seed"] >= 500) and r["variant"] in ("base", "late5", "late10", "ga30"):
            fin[r["variant"]].append(round(ar.best_curve(r, B, spaces["gemm"]["ratios"][-1])[-1], 3))
    for v, xs in sorted(fin.items()):
        print(os.path.basename(f), v, len(xs), "runs; within 5%:", sum(x <= 1.05 for x in xs), "; final ratios:", dict(sorted(collections.Counter(xs).items())))
