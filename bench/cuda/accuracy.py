#!/usr/bin/env python3
"""Accuracy of the CUDA collector's kernel durations against Nsight Compute's gpu__time_duration.sum.

  accuracy.py --collector LIB --bin DIR --out DIR [--ncu PATH]

For each app, one run under the collector and one under
  ncu --metrics gpu__time_duration.sum --clock-control none --cache-control none
(clocks and caches left as in a normal run, so both see the same conditions; ncu serialises kernels).
Per kernel name, the median durations are compared for kernels whose median is >= 10 us; the target is
agreement within 2%."""
import argparse
import collections
import csv
import glob
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "gpu"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import rocpd_query as q  # noqa: E402

APPS = [
    ("attention", ["--seq=2048", "--iters=20"]),
    # each kernel alone on an idle GPU, as ncu runs them: separates execution context from measurement
    ("attention", ["--seq=2048", "--iters=20", "--sync-each=1"]),
    ("attention", ["--seq=1024", "--iters=20"]),
    ("naive_softmax", ["--iters=10"]),
    ("gpu_bound", ["--launches=20", "--inner=16384"]),
    ("multistream", ["--iters=3"]),
]


def find_ncu(explicit):
    if explicit:
        return explicit
    found = shutil.which("ncu")
    if found:
        return found
    for pattern in ("/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/*/ncu", "/usr/local/cuda*/bin/ncu"):
        hits = sorted(glob.glob(pattern))
        if hits:
            return hits[-1]
    return None


def ncu_durations(ncu, cmd, log_path):
    p = subprocess.run([ncu, "--metrics", "gpu__time_duration.sum", "--clock-control", "none", "--cache-control",
                        "none", "--csv", "--print-units", "base", "--log-file", log_path] + cmd,
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"ncu exited {p.returncode}: {p.stdout[-1500:]} {p.stderr[-1500:]}")
    out = collections.defaultdict(list)
    with open(log_path) as f:
        lines = [l for l in f if l.startswith('"')]
    for row in csv.DictReader(lines):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(row["Metric Value"].replace(",", ""))
        unit = row.get("Metric Unit", "ns")
        scale = {"ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6}.get(unit, 1.0)
        out[q.base_name(row["Kernel Name"])].append(value * scale)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--collector", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ncu")
    args = ap.parse_args()
    ncu = find_ncu(args.ncu)
    if not ncu:
        print("SKIP: accuracy: ncu not found")
        return 0
    os.makedirs(args.out, exist_ok=True)
    rows, failures = [], 0
    for index, (app, app_args) in enumerate(APPS):
        cmd = [os.path.join(args.bin, app)] + app_args
        label = f"{app}{'' if not app_args else ' ' + ' '.join(app_args)}"
        tdir = os.path.join(args.out, "acc_traces", f"{index}_{app}")
        shutil.rmtree(tdir, ignore_errors=True)
        os.makedirs(tdir)
        env = dict(os.environ, CUDA_INJECTION64_PATH=os.path.abspath(args.collector), RPL_TRACE_DIR=tdir)
        subprocess.run(cmd, env=env, check=True, capture_output=True, text=True, timeout=300)
        dbs = glob.glob(os.path.join(tdir, "*", "*_results.db"))
        ours = collections.defaultdict(list)
        for d in q.dispatches(q.connect(dbs[0])):
            ours[d["name"]].append(float(d["end"] - d["start"]))
        theirs = ncu_durations(ncu, cmd, os.path.join(args.out, f"ncu_{index}_{app}.csv"))
        for name in sorted(ours):
            mo, mt = q.median(ours[name]), q.median(theirs.get(name, []))
            row = {"app": label, "kernel": name, "n_ours": len(ours[name]), "n_ncu": len(theirs.get(name, [])),
                   "median_ours_us": mo / 1e3, "median_ncu_us": mt / 1e3, "diff_pct": 100.0 * (mo / mt - 1.0)}
            row["in_scope"] = mt >= 10e3
            row["within_2pct"] = abs(row["diff_pct"]) <= 2.0
            rows.append(row)
            if row["in_scope"] and not row["within_2pct"]:
                failures += 1
            print(f"{'PASS' if row['within_2pct'] or not row['in_scope'] else 'FAIL'}: accuracy {label}: {name}: "
                  f"ours {mo / 1e3:.2f} us (n={row['n_ours']}) vs ncu {mt / 1e3:.2f} us (n={row['n_ncu']}): "
                  f"{row['diff_pct']:+.2f}%" + ("" if row["in_scope"] else " (under 10 us: not in scope)"))
    with open(os.path.join(args.out, "accuracy.json"), "w") as f:
        json.dump(rows, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
