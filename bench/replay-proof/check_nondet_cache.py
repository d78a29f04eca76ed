#!/usr/bin/env python3
"""Judges the results of bench/replay-proof/nondet_cache.sh (issue 12 parts 2 and 3). RES holds, per step,
NAME.out (stdout: the replay document with --json), NAME.err and NAME.rc, and app.out (the testbed's own run,
"RPL_INAPP scale <ns>" per launch). Prints PASS/FAIL/INFO lines and the figures; exits 1 on any FAIL.
  check_nondet_cache.py RES"""
import json
import os
import statistics
import sys

RES = sys.argv[1]
FAILS = 0


def check(ok, what):
    global FAILS
    print(("PASS: " if ok else "FAIL: ") + what)
    FAILS += 0 if ok else 1
    return ok


def rc(name):
    try:
        return int(open(os.path.join(RES, name + ".rc")).read().strip())
    except (OSError, ValueError):
        return None


def doc(name):
    try:
        return json.load(open(os.path.join(RES, name + ".out")))
    except (OSError, ValueError):
        return None


def text(name):
    try:
        return open(os.path.join(RES, name + ".out")).read()
    except OSError:
        return ""


def region_line(d):
    s = d.get("replay_spread", {})
    x = d.get("difference", {})
    return (f"region {d['id']} {d['status']}: {d['bytes_differing']} bytes differ, {d['nondeterministic_bytes']} vary "
            f"between replays, {d['mismatched_bytes']} mismatched; element {d['element']['type']}"
            f"{' (inferred)' if d['element']['inferred'] else ''}; replays spread {s.get('max_ulp')} ULP / abs "
            f"{s.get('max_abs')}; capture off by {x.get('max_ulp')} ULP / abs {x.get('max_abs')}, "
            f"{x.get('elements_beyond_spread')} elements beyond the spread")


# ---- part 2: a nondeterministic kernel of our own (float atomicAdd in varying order)
for name, replays in (("atomic-v2", 2), ("atomic-v5", 5)):
    d = doc(name)
    if not check(d is not None and rc(name) == 0, f"{name}: exit 0 with a document (exit {rc(name)})"):
        print(open(os.path.join(RES, name + ".err")).read()[-2000:])
        continue
    v = d["verification"]
    check(v["status"] == "nondeterministic", f"{name}: verification {v['status']} (expected nondeterministic)")
    check(v["replays"] == replays, f"{name}: {v['replays']} replays compared (expected {replays})")
    check(v["mismatched_bytes"] == 0 and v["nondeterministic_bytes"] > 0,
          f"{name}: {v['nondeterministic_bytes']} nondeterministic bytes, {v['mismatched_bytes']} mismatched")
    for r in v["differing_regions"]:
        print("INFO:   " + region_line(r))
    check(any(r["element"]["type"] == "f32" for r in v["differing_regions"]),
          f"{name}: the bins are read as f32 (the inferred type)")
    check(d.get("cache") == "warm", f"{name}: cache {d.get('cache')} (the default: warm)")

d = doc("atomic-v1")
if d is not None:
    st = d["verification"]["status"]
    print(f"INFO: atomic-v1 (one replay against the capture, the old behaviour): {st}, exit {rc('atomic-v1')}")
    check((st == "mismatch" and rc("atomic-v1") == 13) or (st == "match" and rc("atomic-v1") == 0),
          "atomic-v1: one replay cannot tell noise from error: a difference is a mismatch (exit 13)")
else:
    check(False, f"atomic-v1: no document (exit {rc('atomic-v1')})")

d = doc("atomic-perturbed")
if check(d is not None and rc("atomic-perturbed") == 13, f"atomic-perturbed: exit 13 (got {rc('atomic-perturbed')})"):
    v = d["verification"]
    check(v["status"] == "mismatch", f"atomic-perturbed: verification {v['status']} (a real wrong result: bin 0 off by 64)")
    bad = [r for r in v["differing_regions"] if r["status"] == "mismatch"]
    for r in v["differing_regions"]:
        print("INFO:   " + region_line(r))
    check(bool(bad) and all(r["first_difference"] == 0 and r.get("difference", {}).get("max_abs", 0) >= 32 for r in bad),
          "atomic-perturbed: the mismatch is bin 0 (offset 0), off by about 64")

t = text("atomic-text")
check("wall " in t and "cache warm" in t, "terminal summary gives wall time and the cache mode")
check("nondeterministic" in t, "terminal summary says nondeterministic")

# ---- part 3: cache modes on scale (8 MiB in, 8 MiB out: fits in L2), against the in-application time
medians = {}
for mode in ("warm", "cold"):
    per = []
    for i in (1, 2, 3):
        name = f"scale-{mode}-{i}"
        d = doc(name)
        if not check(d is not None and rc(name) == 0, f"{name}: exit 0 (got {rc(name)})"):
            continue
        check(d.get("cache") == mode, f"{name}: the document says cache {d.get('cache')}")
        check(d["verification"]["status"] == "match", f"{name}: verification {d['verification']['status']}")
        per += d["gpu_time_ns"]["per_iteration"]
    if per:
        medians[mode] = statistics.median(per)
in_app = []
try:
    # our collector's (CUPTI) times of scale in the application: the source the replay times come from too
    for line in open(os.path.join(RES, "app_cupti.out")):
        if line.startswith("RPL_INAPP scale "):
            in_app.append(float(line.split()[2]))
except OSError:
    pass
in_app = in_app[3:]  # the first launches warm up the GPU clocks
if check(len(medians) == 2 and len(in_app) > 5, "scale: both cache modes and the in-application time measured"):
    app = statistics.median(in_app)
    warm, cold = medians["warm"], medians["cold"]
    print(f"INFO: scale median: in-app {app / 1e3:.3f} us, replay warm {warm / 1e3:.3f} us, replay cold {cold / 1e3:.3f} us "
          f"(warm/in-app {warm / app:.3f}, cold/in-app {cold / app:.3f})")
    check(warm <= cold, "scale: warm replay is not slower than cold (its 16 MiB fit in L2)")
    lo, hi = min(warm, cold) * 0.97, max(warm, cold) * 1.03
    check(lo <= app <= hi, f"scale: in-app median within the replay's [warm, cold] medians widened by 3% "
          f"([{lo / 1e3:.3f}, {hi / 1e3:.3f}] us)")
    closest = min(("warm", warm), ("cold", cold), key=lambda m: abs(m[1] - app))[0]
    print(f"INFO: scale (elementwise, input written just before): closest mode {closest}")
t = text("scale-text-cold")
check("cache cold" in t and "wall " in t, "terminal summary of a cold replay says so")

print(f"{'ALL PASS' if FAILS == 0 else f'{FAILS} FAIL(S)'}")
sys.exit(1 if FAILS else 0)
