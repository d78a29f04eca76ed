#!/usr/bin/env python3
"""Per-candidate seconds of the optimizer's timing run (issue 27), from an optimizer_corpus.sh archive.

    timing_breakdown.py bench/results/<date>/optimize-corpus/<run>/optimizer-corpus.tar.gz

Reads timing/stdout.json (optimize.json) in the archive and prints one line per candidate with its decision, the
gate that decided, and the seconds of each step (the candidates' "seconds", written since 57170ba), then the
largest and median totals.
"""
import json
import statistics
import sys
import tarfile

with tarfile.open(sys.argv[1]) as tar:
    doc = json.load(tar.extractfile("./timing/stdout.json"))
steps = ["static_gates", "compile", "binary_gates", "replay_batch", "replay_batch_jobs", "equivalence", "performance",
         "equivalence_deferred"]
totals = []
print("candidate decision gate total_s " + " ".join(s + "_s" for s in steps) + " replay_jobs_started")
for c in doc["candidates"]:
    sec = c.get("seconds", {})
    totals.append(sec.get("total", float("nan")))
    print(c["id"], c["decision"], c["gates"][-1]["gate"], f"{sec.get('total', float('nan')):.2f}",
          " ".join(f"{sec.get(s, 0.0):.2f}" for s in steps), c.get("replay_jobs_started", "-"))
print(f"candidates: {len(totals)} max_total_s={max(totals):.2f} median_total_s={statistics.median(totals):.2f}")
