#!/usr/bin/env python3
"""Checks `rocm-perf profile --library-trace` on NVIDIA (issue 33) against bench/cuda/library_calls_job.py:
which NVTX ranges the trace holds (every one comes from a library: the job opens none), whether library_calls.json
and library_trace.csv were written, and whether cuBLAS and cuDNN calls were found, at least as many as the job made.

  check_library_trace.py PROFILE_DIR JOB_STDOUT

One JSON line per check on stdout, then the distinct range names (category, name, count) as "ranges" lines;
exit status 1 when a check fails. A FAIL on the library counts with no library range in the trace means the
libraries emitted no NVTX range in this setup (as on one H200 with PyTorch 2.11 / CUDA 13, 2026-11-29): then
library_calls.json must name the libraries whose kernels ran without a marked call (kernels_without_calls)."""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "gpu"))
import rocpd_query  # noqa: E402


def main():
    prof, job_out = sys.argv[1], sys.argv[2]
    expected = {}
    for line in open(job_out):
        if line.startswith("RPL_EXPECT "):
            _, lib, n = line.split()
            expected[lib] = int(n)
    ok = True

    def check(name, passed, **detail):
        nonlocal ok
        ok = ok and passed
        print(json.dumps({"check": name, "result": "PASS" if passed else "FAIL", **detail}))

    dbs = sorted(glob.glob(os.path.join(prof, "runs", "run-1", "**", "*_results.db"), recursive=True))
    check("trace database", bool(dbs), databases=len(dbs))
    names = {}
    for db in dbs:
        for r in rocpd_query.regions(rocpd_query.connect(db)):
            category = r["category"] or ""
            if "MARKER" in category or "NVTX" in category:
                key = (r["category"], r["name"])
                names[key] = names.get(key, 0) + 1
    calls_file = os.path.join(prof, "library_calls.json")
    check("library_calls.json written", os.path.exists(calls_file))
    check("library_trace.csv written", os.path.exists(os.path.join(prof, "library_trace.csv")))
    check("the job ran", bool(expected), expected=expected)
    found = {}
    if os.path.exists(calls_file):
        doc = json.load(open(calls_file))
        for f in doc.get("functions", []):  # schemas/library-calls.schema.json
            found[f["library"].lower()] = found.get(f["library"].lower(), 0) + f["calls"]
    for lib, n in sorted(expected.items()):
        got = sum(v for k, v in found.items() if k.startswith(lib))
        check(f"{lib} calls found", got >= n, made=n, found=got, marker_ranges=sum(names.values()))
        if got == 0:
            # no call found although the job made some: profile must name the library's kernels as run unmarked
            # (library_calls.json kernels_without_calls, since schema version 1.2)
            unmarked = sum(k["dispatches"] for k in doc.get("kernels_without_calls", [])
                           if k["library"].lower() == lib) if os.path.exists(calls_file) else 0
            check(f"{lib} kernels named as run without a marked call", unmarked >= n, made=n, dispatches=unmarked)
    for (cat, name), n in sorted(names.items(), key=lambda kv: -kv[1])[:40]:
        print(json.dumps({"ranges": {"category": cat, "name": name, "count": n}}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
