#!/usr/bin/env python3
"""Reads TRACE output of the harness (seed after seed) and counts, over the measurements after the seed phase,
those with UNROLL=0, the invalid ones and those that differ from an earlier measurement of the same seed only
in PAD. Usage: for s in $(seq 0 24); do TRACE=$s ./harness conv.json 1 $s; done | python3 waste.py"""
import sys

u0 = inv = twin = total = 0
seen = set()
for line in sys.stdin:
    f = line.split()
    if len(f) != 4 or f[1] not in ("seed", "predict-confirm"):
        continue
    if f[0] == "0":
        seen = set()
    d = dict(kv.split("=") for kv in f[2].split(","))
    without_pad = tuple((k, v) for k, v in d.items() if k != "PAD")
    if f[1] == "predict-confirm":
        total += 1
        u0 += d["UNROLL"] == "0"
        inv += f[3] == "-1"
        twin += without_pad in seen
    seen.add(without_pad)
print(f"post-seed measurements {total}, UNROLL=0 {u0}, invalid {inv}, PAD twins {twin}")
