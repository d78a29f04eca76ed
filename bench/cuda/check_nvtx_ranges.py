#!/usr/bin/env python3
"""Checks the GPU time rocm-perf gives NVTX ranges (analysis.json range_summary, issue 29) on a profile of
bench/cuda/nvtx_ranges.cu: the kernels each range launched (exact counts, from the program), and the GPU busy time
recomputed here independently from the rocpd database (kernels and copies whose correlation id belongs to an API call the
range's thread made between push and pop; their intervals' union per instance, summed).
  check_nvtx_ranges.py PROFILE_DIR [--no-expect]
PROFILE_DIR: what `rocm-perf profile -o PROFILE_DIR -- nvtx_ranges` wrote. One JSON line per check on stdout;
exit status 1 when a check fails. --no-expect: only the recomputation (any trace with ranges)."""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "gpu"))
import rocpd_query  # noqa: E402

# name -> (instances, kernels launched inside), from nvtx_ranges.cu
EXPECTED = {"serial": (1, 4), "concurrent": (1, 2), "host_only": (1, 0), "step": (3, 3), "epoch": (1, 3),
            "worker": (1, 1), "main_wait": (1, 0)}


def union(intervals):
    total, end = 0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def recompute(db):
    conn = rocpd_query.connect(db)
    regions = rocpd_query.regions(conn)
    kernels, copies = {}, {}
    for d in rocpd_query.dispatches(conn):
        if d["corr"]:
            kernels.setdefault(d["corr"], []).append((d["start"], d["end"]))
    for m in conn.execute("""SELECT M.start, M.end, E.stack_id AS corr FROM rocpd_memory_copy M
                             LEFT JOIN rocpd_event E ON E.id = M.event_id AND E.guid = M.guid"""):
        if m["corr"]:
            copies.setdefault(m["corr"], []).append((m["start"], m["end"]))
    calls = [r for r in regions if "MARKER" not in (r["category"] or "") and r["corr"]]
    out = {}
    for r in regions:
        if "MARKER" not in (r["category"] or ""):
            continue
        corrs = {c["corr"] for c in calls if c["tid"] == r["tid"] and r["start"] <= c["start"] <= r["end"]}
        launched = [iv for c in corrs for iv in kernels.get(c, [])]
        copied = [iv for c in corrs for iv in copies.get(c, [])]
        s = out.setdefault(r["name"], {"count": 0, "host_ns": 0, "kernels": 0, "copies": 0, "busy_ns": 0,
                                       "kernel_sum_ns": 0})
        s["count"] += 1
        s["host_ns"] += r["end"] - r["start"]
        s["kernels"] += len(launched)
        s["copies"] += len(copied)
        s["busy_ns"] += union(launched + copied)
        s["kernel_sum_ns"] += sum(e - b for b, e in launched)
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    expect = "--no-expect" not in sys.argv
    if len(args) != 1:
        sys.exit(__doc__)
    prof = args[0]
    dbs = sorted(glob.glob(os.path.join(prof, "runs", "run-1", "**", "*.db"), recursive=True))
    if not dbs:
        sys.exit(f"no rocpd database under {prof}/runs/run-1")
    ours = {s["name"]: s for s in json.load(open(os.path.join(prof, "analysis.json")))["range_summary"]}
    ref = {}
    for db in dbs:
        for name, s in recompute(db).items():
            t = ref.setdefault(name, dict.fromkeys(s, 0))
            for k, v in s.items():
                t[k] += v
    failed = 0

    def check(what, ok, **evidence):
        nonlocal failed
        failed += 0 if ok else 1
        print(json.dumps({"check": what, "ok": bool(ok), **evidence}, sort_keys=True))

    for name in sorted(set(ref) | set(ours)):
        o, r = ours.get(name), ref.get(name)
        if not o or not r:
            check(f"{name}: in both", False, rocm_perf=o, recomputed=r)
            continue
        check(f"{name}: kernels and copies as recomputed",
              (o["gpu_kernels"], o["gpu_copies"]) == (r["kernels"], r["copies"]),
              rocm_perf=[o["gpu_kernels"], o["gpu_copies"]], recomputed=[r["kernels"], r["copies"]])
        check(f"{name}: GPU busy as recomputed", abs(o["gpu_busy_ns"] - r["busy_ns"]) <= 1, rocm_perf=o["gpu_busy_ns"],
              recomputed=r["busy_ns"], host_ns=o["total_ns"])
        if expect and name in EXPECTED:
            count, kernels = EXPECTED[name]
            check(f"{name}: instances and kernels as launched", (o["count"], o["gpu_kernels"]) == (count, kernels),
                  expected=[count, kernels], rocm_perf=[o["count"], o["gpu_kernels"]])
    if expect:
        missing = sorted(set(EXPECTED) - set(ours))
        check("every range of the program recorded", not missing, missing=missing)
        s = ours.get("serial")
        if s:  # launches are asynchronous: the range's GPU time is far longer than its host time
            check("serial: GPU busy >> host time", s["gpu_busy_ns"] > 5 * s["total_ns"], gpu_busy_ns=s["gpu_busy_ns"],
                  host_ns=s["total_ns"], kernel_sum_ns=ref.get("serial", {}).get("kernel_sum_ns"))
        c = ref.get("concurrent")
        if c:  # informational: whether the two streams overlapped (busy < sum); the check above is exactness
            print(json.dumps({"note": "concurrent: busy vs sum of its kernels", "busy_ns": c["busy_ns"],
                              "kernel_sum_ns": c["kernel_sum_ns"]}))
    print(json.dumps({"summary": "failed" if failed else "passed", "failed_checks": failed}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
