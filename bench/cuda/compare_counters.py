#!/usr/bin/env python3
"""Compares ncu's CSV with librpl_cupti_counters' CSVs (bench/cuda/cupti_counters.sh): cost per instance
and, per metric, the median over instances of each tool and their ratio."""
import csv, glob, statistics, sys

def table(path):
    rows = [r for r in csv.reader(open(path)) if r and not r[0].startswith("==")]
    h = rows[0]
    data = [r for r in rows[1:] if r[0].strip().isdigit()]
    return h, data

def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return None

def medians(h, data):
    out = {}
    for i, name in enumerate(h[11:], start=11):
        vals = [v for v in (num(r[i]) for r in data) if v is not None]
        out[name] = statistics.median(vals) if vals else None
    return out

work, base, ncu_wall = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
h, ncu = table(f"{work}/ncu.csv")
print(f"ncu: {len(ncu)} instances, {(ncu_wall - base) / max(len(ncu), 1):.1f} ms/instance above plain")
ref = medians(h, ncu)
for b in sys.argv[4:]:
    files = glob.glob(f"{work}/cupti-{b}/counters-*.csv")
    if not files:
        print(f"cupti batch {b}: no CSV written"); continue
    data, ch = [], None
    for f in files:
        ch, d = table(f)
        data += d
    for f in files:
        for line in open(f):
            if line.startswith("==RPL=="): print("  " + line.strip())
    wall = int(open(f"{work}/cupti-{b}.wall").read())
    print(f"cupti batch {b}: {len(data)} instances, {(wall - base) / max(len(data), 1):.1f} ms/instance above plain")
    got = medians(ch, data)
    print(f"  {'metric':<70} {'ncu':>14} {'cupti':>14} {'ratio':>7}")
    for m, v in ref.items():
        c = got.get(m)
        ratio = f"{c / v:.4f}" if c is not None and v not in (None, 0) else "-"
        print(f"  {m:<70} {v if v is not None else 'n/a':>14} {c if c is not None else 'n/a':>14} {ratio:>7}")
