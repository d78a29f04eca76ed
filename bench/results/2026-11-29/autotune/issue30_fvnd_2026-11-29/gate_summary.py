#!/usr/bin/env python3
"""gate_summary.py GATE_TXT ... -- RUNS.jsonl ...: the late descent's gate statistic when the last 25% of the budget
begins (valid measurements within 2% of the best, the best not counted, and all valid measurements so far), per
space and budget: runs, how many open under the adopted rule (at least 5 and at least 15%), and the lowest and
highest share. GATE_TXT: gate_stats.sh's lines; RUNS.jsonl: fvscreen.py's runs (their "log" field)."""
import sys, re, json, collections
args = sys.argv[1:]
cut = args.index("--") if "--" in args else len(args)
lines = []
for f in args[:cut]:
    lines += [l for l in open(f) if not l.startswith("#")]
for f in args[cut + 1:]:
    for l in open(f):
        r = json.loads(l)
        if r.get("log") and r["variant"] == "fvnd25s15":
            lines.append(f"{r['space']} {r['budget_pct']}% seed {r['seed']}: {r['log'][0]}")
cells = collections.defaultdict(list)
for l in lines:
    m = re.search(r"^(\S+) (\d)% seed (\d+): fvnd gate \w+: (\d+) other valid within 2.0% of the best, (\d+) valid", l)
    if not m: continue
    cells[(m.group(1), int(m.group(2)))].append((int(m.group(3)), int(m.group(4)), int(m.group(5))))
print("space budget: runs, open (>= 5 and >= 15%), share within 2% lowest-highest, seeds")
for (sp, b), v in sorted(cells.items()):
    v = sorted(set(v))
    shares = [f / n for _, f, n in v]
    opened = sum(f >= 5 and f >= 0.15 * n for _, f, n in v)
    print(f"{sp} {b}%: {len(v)} runs, {opened} open, share {min(shares):.3f}-{max(shares):.3f}, seeds {v[0][0]}-{v[-1][0]}")
