#!/usr/bin/env python3
"""Checks the collectives-by-communicator proof (issue 31) on the outputs of bench/multigpu/gpu_collectives.sh
(several GPUs) or gpu_collectives_1gpu.sh (one GPU), analysing the databases with this machine's rocm-perf.
Prints one PASS/FAIL line per target and writes check.json beside the outputs; the committed runs are archives:
extract collectives.tar.gz in the run's folder first (it holds files/<run>/).
  python3 bench/multigpu/check_collectives.py RESULTS_DIR --rocm-perf build/src/cli/rocm-perf [--what-if REGEX]"""
import argparse
import glob
import json
import os
import sqlite3
import subprocess
import sys

p = argparse.ArgumentParser()
p.add_argument("results")
p.add_argument("--rocm-perf", required=True)
p.add_argument("--what-if", default="gemm|nvjet|xmma|cutlass|sm90_|sm80_", help="regex of the GEMM kernels")
a = p.parse_args()
R = a.results
checks = []


def check(name, ok, detail):
    checks.append({"target": name, "met": bool(ok), "detail": detail})
    print(("PASS " if ok else "FAIL ") + name + ": " + detail)


def analyze(dbs, out, what_if=None):
    cmd = [a.rocm_perf, "analyze", "--ranks", *dbs, "-o", out, "--json"]
    if what_if:
        cmd += ["--what-if", what_if]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stderr[-2000:], file=sys.stderr)
        raise SystemExit(f"rocm-perf analyze failed ({r.returncode}): {' '.join(cmd)}")
    with open(os.path.join(out, "multi_rank.json")) as f:
        return json.load(f)


def calls_in(db):
    c = sqlite3.connect(db)
    rows = c.execute("SELECT comm_id, comm_size, comm_rank, sequence, operation, data_type, count, bytes, group_id "
                     "FROM rpl_collective_call ORDER BY start").fetchall()
    c.close()
    return rows


if os.path.isdir(os.path.join(R, "self_p2p")):  # one GPU
    dbs = sorted(glob.glob(os.path.join(R, "files", "*_results.db")))
    log = json.load(open(os.path.join(R, "self_p2p", "log", "self_p2p.json")))
    rows = calls_in(dbs[0])
    want = log["iters"] * log["communicators"] * len(log["calls_per_group"])
    check("plugin calls stored in the rocpd database", len(rows) == want, f"{len(rows)} calls, job made {want}")
    check("bytes equal what the job passed", all(r[7] == log["bytes"] and r[6] == log["count"] for r in rows),
          f"every call {log['count']} x bf16 = {log['bytes']} bytes" if rows else "no calls")
    comms = sorted({r[0] for r in rows})
    check("one id per communicator", len(comms) == log["communicators"], f"{len(comms)} communicator ids: {comms}")
    doc = analyze(dbs, os.path.join(R, "analysis"))
    check("every SendRecv kernel linked to its call group", doc["matching"] == "communicator",
          f"matching: {doc['matching']}; warnings: {doc['warnings']}")
    ops = [(c["id"], o["operation"], o["instances"], o["bytes_max"]) for c in doc["communicators"] for o in c["operations"]]
    check("instances per communicator", all(n == log["iters"] for _, _, n, _ in ops) and len(ops) == 2,
          f"{ops}")
else:  # several GPUs
    # gpu_collectives.sh's folders, or the flat copy it archives (files/<run>/: databases and rank logs together).
    def found(run, traced, logged):
        return sorted(glob.glob(os.path.join(R, run, *traced)) or glob.glob(os.path.join(R, "files", run, logged)))
    base = found("baseline", ("trace", "*", "*_results.db"), "*_results.db")
    rerun = found("rerun", ("trace", "*", "*_results.db"), "*_results.db")
    logs = [json.load(open(f)) for f in found("baseline", ("log", "rank*.json"), "rank*.json")]
    loop = [json.load(open(f)) for f in found("loop", ("log", "rank*.json"), "rank*.json")]
    doc = analyze(base, os.path.join(R, "analysis_baseline"), a.what_if + "=0.5")
    doc_rerun = analyze(rerun, os.path.join(R, "analysis_rerun"))
    check("instances matched per communicator", doc["matching"] == "communicator", f"matching: {doc['matching']}")
    groups = {tuple(l["tp_group"]) for l in logs} | {tuple(l["dp_group"]) for l in logs}
    groups = {g for g in groups if len(g) > 1}
    found = {tuple(c["ranks"]) for c in doc["communicators"] if c["size"] > 1 and len(c["ranks"]) < len(logs)}
    check("communicators are the job's groups", groups <= found, f"job: {sorted(groups)}, found: {sorted(found)}")
    passed = {(tuple(c["ranks"]), c["operation"]): c["bytes"] for l in logs for c in l["calls_per_step"]}
    rec = {(tuple(c["ranks"]), o["operation"]): (o["bytes_min"], o["bytes_max"]) for c in doc["communicators"]
           for o in c["operations"]}
    bad = [(k, v, rec.get(k)) for k, v in passed.items() if rec.get(k) != (v, v)]
    check("bytes equal what the job passed", not bad, f"{len(passed)} (group, operation) pairs; mismatches: {bad}")
    # Bus bandwidth against the nccl-tests loop of the same calls and sizes.
    ref = {(tuple(r["ranks"]), r["operation"]): r["busbw_gb_per_s"] for l in loop for r in l["loop"]}
    rows = []
    for c in doc["communicators"]:
        for o in c["operations"]:
            k = (tuple(c["ranks"]), o["operation"])
            if k in ref:
                rows.append((k, o["busbw_median_gb_per_s"], ref[k], abs(o["busbw_median_gb_per_s"] / ref[k] - 1)))
    check("bus bandwidth within 10% of the nccl-tests loop", rows and all(r[3] <= 0.10 for r in rows),
          "; ".join(f"{k}: {m:.1f} vs {n:.1f} GB/s ({100 * e:.1f}%)" for k, m, n, e in rows))
    slow = {l["rank"] for l in logs if l["slow_group"]}
    named = {c["straggler"] for c in doc["communicators"] if c["straggler"] >= 0}
    check("straggler found in the right group", named and named <= slow and any(
        "slower as a whole" in f for f in doc["findings"]), f"slow group {sorted(slow)}; named {sorted(named)}; "
          f"findings {doc['findings']}")
    wi = doc["what_if"][0]["predicted_ms"]
    real = doc_rerun["critical_path"]["measured_ms"]
    check("what-if within 5% of the real rerun", abs(wi / real - 1) <= 0.05,
          f"predicted {wi:.3f} ms, rerun measured {real:.3f} ms ({100 * (wi / real - 1):+.1f}%); baseline measured "
          f"{doc['critical_path']['measured_ms']:.3f} ms, modelled {doc['critical_path']['modeled_ms']:.3f} ms")
    # For comparison (no target): the same databases without the calls, matched by kernel name and order.
    import shutil
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        bare = []
        for db in base:
            copy = os.path.join(tmp, os.path.basename(db))
            shutil.copy(db, copy)
            c = sqlite3.connect(copy)
            if c.execute("SELECT count(*) FROM sqlite_master WHERE name = 'rpl_collective_call'").fetchone()[0]:
                c.execute("DELETE FROM rpl_collective_call")
                c.commit()
            c.close()
            bare.append(copy)
        by_name = analyze(bare, os.path.join(R, "analysis_by_name"))
    cp, np_ = doc["critical_path"], by_name["critical_path"]
    print(f"INFO by communicator: {len(doc['collectives'])} collectives, modelled {cp['modeled_ms']:.3f} ms of "
          f"{cp['measured_ms']:.3f} ms measured; by name and order: "
          + ", ".join(f"{c['kernel'][:40]} x{c['instances']} ranks {c['ranks']}" for c in by_name["collectives"])
          + f"; modelled {np_['modeled_ms']:.3f} ms; stragglers {[x['rank'] for x in by_name['stragglers']]}"
          + f" (by communicator {[x['rank'] for x in doc['stragglers']]})")
with open(os.path.join(R, "check.json"), "w") as f:
    json.dump(checks, f, indent=1)
sys.exit(0 if all(c["met"] for c in checks) else 1)
