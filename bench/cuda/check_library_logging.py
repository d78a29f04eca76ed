#!/usr/bin/env python3
"""Checks `rocm-perf profile --library-trace` on NVIDIA with the libraries' API logs (issue 33) against
bench/cuda/library_logging_job.py: the logs written, the calls that library_trace.csv lists from them, how many of
them were linked to kernels, and the data types their arguments name.

  check_library_logging.py PROFILE_DIR JOB_STDOUT

One JSON line per check (PASS / FAIL) or figure ("info") on stdout; exit status 1 when a check fails."""
import collections
import csv
import glob
import json
import os
import sys

SET_UP = ("Create", "Destroy", "Set", "Get", "Finalize", "Init", "Version", "Property", "Heuristic", "Config",
          "Query", "Logger")


def may_launch_work(function):
    words, word = [], ""
    for ch in function:
        if ch.isupper():
            if word:
                words.append(word)
            word = ch
        elif word and ch.islower():
            word += ch
        else:
            if word:
                words.append(word)
            word = ""
    words.append(word)
    return not any(w in SET_UP for w in words)


def main():
    prof, job_out = sys.argv[1], sys.argv[2]
    expected = collections.Counter()
    for line in open(job_out):
        if line.startswith("RPL_EXPECT "):
            _, kind, family, dtype, n = line.split()
            expected[family] += int(n)
    ok = True

    def check(name, passed, **detail):
        nonlocal ok
        ok = ok and passed
        print(json.dumps({"check": name, "result": "PASS" if passed else "FAIL", **detail}))

    def info(name, **detail):
        print(json.dumps({"info": name, **detail}))

    logs = os.path.join(prof, "runs", "run-1", "library_logs")
    files = {os.path.basename(p): os.path.getsize(p) for p in glob.glob(os.path.join(logs, "*"))}
    check("the job ran", bool(expected), expected=dict(expected))
    check("clock.txt written", "clock.txt" in files)
    check("cuBLAS log written", files.get("cublas.log", 0) > 0, bytes=files.get("cublas.log", 0))
    check("cuDNN log written", files.get("cudnn.log", 0) > 0, bytes=files.get("cudnn.log", 0))
    info("cuBLASLt logs", files={k: v for k, v in files.items() if k.startswith("cublaslt_")})
    rows = []
    path = os.path.join(prof, "library_trace.csv")
    check("library_trace.csv written", os.path.exists(path))
    if os.path.exists(path):
        rows = list(csv.DictReader(open(path)))
    doc = {}
    if os.path.exists(os.path.join(prof, "library_calls.json")):
        doc = json.load(open(os.path.join(prof, "library_calls.json")))
    check("library_calls.json has logged_calls", "logged_calls" in doc, logged_calls=doc.get("logged_calls"))
    work = collections.Counter()
    linked = collections.Counter()
    kernels = collections.Counter()
    links = collections.Counter()
    functions = collections.Counter()
    dtypes = collections.Counter()
    for r in rows:
        family = "dnn" if r["Library"] == "cuDNN" else "blas"
        functions[(r["Library"], r["Function"])] += 1
        links[r["Link"]] += 1
        if may_launch_work(r["Function"]):
            work[family] += 1
        if int(r["GPU_Kernels"]) > 0:
            linked[family] += 1
            kernels[family] += int(r["GPU_Kernels"])
        for arg in r["Arguments"].split():
            key, _, value = arg.partition("=")
            if key in ("Atype", "Dtype", "dataType", "computeType"):
                dtypes[f"{r['Library']} {key}={value}"] += 1
    for family, n in sorted(expected.items()):
        check(f"{family} calls that may launch work listed", work[family] >= n, made=n, listed=work[family])
        check(f"{family} calls linked to kernels", linked[family] >= 1, made=n, linked=linked[family],
              kernels=kernels[family])
    check("no library named as run without calls", not doc.get("kernels_without_calls"),
          kernels_without_calls=doc.get("kernels_without_calls"))
    info("links", **links)
    info("data types in the arguments", **dtypes)
    for (lib, fn), n in functions.most_common(40):
        print(json.dumps({"function": {"library": lib, "function": fn, "rows": n}}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
