#!/usr/bin/env python3
"""Summarises bench/presets/gpu_overhead.sh's runs: per workload and variant (baseline, each preset, the
counter file) the median over the runs of the application's own loop time (RPL_RESULT loop_s= or
ms_per_step=, from each run's app.stdout) and of the process wall time (profile.json runs.per_run wall_ns),
their ratio to the baseline's medians, the whole command's wall time, how many application runs the counter
passes took, and for api-overhead the busiest API call.

  summarize_overhead.py RUNS_DIR OUT.tsv    (prints the table; writes it tab-separated too)"""
import json
import os
import re
import statistics
import sys


def app_loop_s(stdout_file):
    try:
        text = open(stdout_file, errors="replace").read()
    except OSError:
        return None
    m = re.search(r"loop_s=([0-9.]+)", text)
    if m:
        return float(m.group(1))
    m = re.search(r"ms_per_step=([0-9.]+)", text)
    return float(m.group(1)) / 1e3 if m else None


def load(variant_dir):
    res = json.load(open(os.path.join(variant_dir, "result.json")))
    row = {"exit": res["exit"], "command_s": res["command_wall_s"], "wall_ms": None, "loop_ms": None,
           "counter_runs": "", "note": ""}
    prof = os.path.join(variant_dir, "out", "profile.json")
    if res["exit"] == 17:
        err = open(os.path.join(variant_dir, "stderr.txt"), errors="replace").read()
        m = re.search(r"it needs (.*?)\. Nothing", err, re.S)
        row["note"] = "refused (exit 17): " + (m.group(1) if m else err.strip()[-120:]).replace("\n", " ")
        return row
    if not os.path.exists(prof):
        row["note"] = f"exit {res['exit']}, no profile.json"
        return row
    doc = json.load(open(prof))
    runs = doc["runs"]["per_run"]
    row["wall_ms"] = statistics.median(r["wall_ns"] for r in runs) / 1e6
    loops = [app_loop_s(r["stdout_file"]) for r in runs]
    loops = [x for x in loops if x is not None]
    row["loop_ms"] = statistics.median(loops) * 1e3 if loops else None
    c = doc.get("counters")
    if c:
        row["counter_runs"] = f"{c['application_runs']} run(s), {len(c['passes'])} pass(es), {c['tool']}"
    api = doc.get("api_stats")
    if api and api["calls"]:
        top = api["calls"][0]
        row["note"] = (f"{api['total_calls']} API calls; top {top['name']} x{top['count']} "
                       f"p50 {top['p50_ns'] / 1e3:.2f} us p99 {top['p99_ns'] / 1e3:.2f} us")
    if os.path.exists(os.path.join(variant_dir, "out", "trace.perfetto.json")):
        row["note"] = (row["note"] + "; " if row["note"] else "") + "trace.perfetto.json written"
    if res["exit"] != 0:
        row["note"] = (row["note"] + "; " if row["note"] else "") + f"exit {res['exit']}"
    return row


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def main():
    runs_dir, tsv = sys.argv[1], sys.argv[2]
    header = ["workload", "variant", "exit", "loop_ms_median", "loop_x", "wall_ms_median", "wall_x", "command_s",
              "counter_runs", "note"]
    lines = ["\t".join(header)]
    print(f"{'workload':<13} {'variant':<14} {'exit':>4} {'loop ms':>9} {'x':>6} {'wall ms':>9} {'x':>6} "
          f"{'cmd s':>7}  counters / note")
    for wl in sorted(os.listdir(runs_dir)):
        variants = sorted(os.listdir(os.path.join(runs_dir, wl)), key=lambda v: (v != "baseline", v))
        base = None
        for v in variants:
            row = load(os.path.join(runs_dir, wl, v))
            if v == "baseline":
                base = row
            loop_x = row["loop_ms"] / base["loop_ms"] if base and row["loop_ms"] and base["loop_ms"] else None
            wall_x = row["wall_ms"] / base["wall_ms"] if base and row["wall_ms"] and base["wall_ms"] else None
            lines.append("\t".join([wl, v, str(row["exit"]), fmt(row["loop_ms"], ".3f"), fmt(loop_x, ".3f"),
                                    fmt(row["wall_ms"], ".1f"), fmt(wall_x, ".3f"), fmt(row["command_s"], ".2f"),
                                    row["counter_runs"], row["note"]]))
            print(f"{wl:<13} {v:<14} {row['exit']:>4} {fmt(row['loop_ms'], '.3f'):>9} {fmt(loop_x, '.3f'):>6} "
                  f"{fmt(row['wall_ms'], '.1f'):>9} {fmt(wall_x, '.3f'):>6} {fmt(row['command_s'], '.2f'):>7}  "
                  f"{row['counter_runs']}{'; ' if row['counter_runs'] and row['note'] else ''}{row['note']}")
    open(tsv, "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
