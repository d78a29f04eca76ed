#!/usr/bin/env python3
"""From traces_base_conv.txt: for each seed whose best is over 1.1x the optimum, the ratios of the measured
configurations with TX=2, TY in {3, 4, 6} and UNROLL=1 (the part of the space that holds every configuration
within 10%)."""
import re
from pathlib import Path

seeds = {}
for line in Path(__file__).with_name("traces_base_conv.txt").read_text().splitlines():
    m = re.match(r"== .* seed (\d+):", line)
    if m:
        cur = seeds.setdefault(int(m.group(1)), {"best": float("inf"), "near": []})
        continue
    seq, phase, cfg, ratio = line.split()
    r = float(ratio)
    if r > 0:
        cur["best"] = min(cur["best"], r)
        if re.search(r"TX=2,TY=(3|4|6),PAD=.,UNROLL=1", cfg):
            cur["near"].append(r)
for s, d in sorted(seeds.items()):
    if d["best"] > 1.1:
        print(f"seed {s}: best {d['best']:.3f}; TX=2, TY 3-6, UNROLL=1 measured {len(d['near'])}x:",
              " ".join(f"{r:.2f}" for r in sorted(d["near"])))
