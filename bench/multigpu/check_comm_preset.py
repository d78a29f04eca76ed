#!/usr/bin/env python3
"""Checks what `rocm-perf profile --preset communication` wrote on NVIDIA (bench/multigpu/gpu_comm_preset.sh,
issue 33): NCCL calls from our profiler plugin (rpl_collective_call rows), counter values of the preset's
counter file (rocpd_pmc_event rows), NVML samples (rocpd_sample rows), in the launcher form's representative
run and in every rank database of the --rank-wrapper form. Prints PASS/FAIL per check; exit 1 on any FAIL."""
import argparse
import glob
import json
import os
import sqlite3
import sys

failures = 0


def check(ok, what):
    global failures
    print(("PASS " if ok else "FAIL ") + what)
    if not ok:
        failures += 1


def count(db, table):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        if not con.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]:
            return 0
        return con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    finally:
        con.close()


def databases(folder):
    return sorted(glob.glob(os.path.join(folder, "**", "*.db"), recursive=True))


def totals(dbs):
    return {t: sum(count(d, t) for d in dbs) for t in ("rpl_collective_call", "rocpd_pmc_event", "rocpd_sample")}


def check_launcher(out):
    path = os.path.join(out, "profile.json")
    check(os.path.exists(path), f"launcher: {path} written")
    if not os.path.exists(path):
        return
    doc = json.load(open(path))
    check((doc.get("preset") or {}).get("name") == "communication", "launcher: profile.json names the preset")
    counters = doc.get("counters") or {}
    check(counters.get("values_stored", 0) > 0, f"launcher: counter values stored ({counters.get('values_stored')})")
    monitor = (doc.get("runs") or {}).get("device_monitor") or {}
    check(monitor.get("source") == "nvml", f"launcher: device monitor source {monitor.get('source')}")
    dbs = databases(os.path.join(out, "runs", "run-1"))
    t = totals(dbs)
    print(f"     {len(dbs)} database(s) in runs/run-1: {t}")
    check(t["rpl_collective_call"] > 0, "launcher: NCCL calls recorded by the plugin")
    check(t["rocpd_pmc_event"] > 0, "launcher: counter values in the trace databases")
    check(t["rocpd_sample"] > 0, "launcher: device samples in the trace databases")


def check_ranks(out, expect, counters="stored"):
    for r in range(expect):
        dbs = databases(os.path.join(out, "ranks", f"rank-{r}"))
        t = totals(dbs)
        print(f"     rank-{r}: {len(dbs)} database(s): {t}")
        check(len(dbs) >= 1, f"ranks: rank-{r} wrote a database")
        check(t["rpl_collective_call"] > 0, f"ranks: rank-{r} NCCL calls recorded")
        if counters == "stored":
            check(t["rocpd_pmc_event"] > 0, f"ranks: rank-{r} counter values stored")
        else:  # under torchrun a rank's counter pass is skipped (its second start cannot rendezvous), saying so
            check(t["rocpd_pmc_event"] == 0, f"ranks: rank-{r} no counter values (the pass is skipped under torchrun)")
        check(t["rocpd_sample"] > 0, f"ranks: rank-{r} device samples stored")
    if counters == "skipped":
        log = out.rstrip("/") + ".stderr"
        said = os.path.exists(log) and "the counter pass is skipped" in open(log, errors="replace").read()
        check(said, f"ranks: the skipped counter pass is announced ({os.path.basename(log)})")
    analysis = os.path.join(os.path.dirname(out.rstrip("/")), "ranks-analysis", "multi_rank.json")
    if os.path.exists(analysis):
        check(len(json.load(open(analysis)).get("ranks", [])) == expect, f"ranks: analyze DIR sees {expect} ranks")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--launcher", help="the -o folder of the launcher form")
    p.add_argument("--ranks", help="the -o folder of the --rank-wrapper form")
    p.add_argument("--expect-ranks", type=int, default=2)
    p.add_argument("--rank-counters", choices=["stored", "skipped"], default="stored",
                   help="skipped: the rank form ran under torchrun with several ranks (no counter pass there)")
    a = p.parse_args()
    if a.launcher:
        check_launcher(a.launcher)
    if a.ranks:
        check_ranks(a.ranks, a.expect_ranks, a.rank_counters)
    print("FAILURES" if failures else "ALL PASS", failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
