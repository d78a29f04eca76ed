#!/usr/bin/env python3
"""Checks what `rocm-perf profile` wrote for one testbed app on the GPU machine.

- profile.json: trace mode on the expected platform, every run's databases present, and for every
  `RPL_EXPECT kernel=NAME count=N` line the app printed, the kernel NAME(...) with exactly N dispatches
  (in the representative run).
- --multistream SPEC: the DAG built by `rocm-perf` from the recorded events follows the path the app was
  built to have: the critical-path kernels are on the path, the others are not, the path's busy time is
  iterations x the per-iteration path, and the off-path stages have the slack the spec says.
Prints PASS/FAIL lines; exits 1 on any failure.
"""
import argparse
import json
import os
import re
import sys

fails = 0


def check(ok, what, detail=""):
    global fails
    print(("PASS: " if ok else "FAIL: ") + what + (f" ({detail})" if detail else ""))
    fails += 0 if ok else 1


def base(name):
    return name.split("(")[0].split("<")[0].strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--platform", default="cuda")
    ap.add_argument("--multistream")
    ap.add_argument("--iters", type=int, default=3)
    args = ap.parse_args()
    profile = json.load(open(os.path.join(args.out, "profile.json")))
    dag = json.load(open(os.path.join(args.out, "dag.json")))
    runs = profile["runs"]
    check(profile["mode"] == "trace" and runs["platform"] == args.platform, "trace mode on " + args.platform)
    check(all(r["databases"] and all(os.path.exists(d) for d in r["databases"]) for r in runs["per_run"]),
          f"{runs['count']} runs, each with its rocpd database(s)")
    rep = runs["per_run"][runs["representative_run"] - 1]
    stdout = open(rep["stdout_file"]).read()
    expects = re.findall(r"RPL_EXPECT kernel=(\S+) count=(\d+)", stdout)
    check(bool(expects), "the app declared what it launched")
    counts = {}
    for k in profile["kernels"]:
        counts[base(k["name"])] = counts.get(base(k["name"]), 0) + k["durations"]["count"]
    for name, n in expects:
        check(counts.get(name) == int(n), f"kernel {name}: {n} dispatches", f"trace has {counts.get(name)}")

    if args.multistream:
        spec = json.load(open(args.multistream))
        on_path = {base(c["name"]) for c in dag["contributions"]}
        for k in spec["critical_path_per_iteration"]:
            check(k in on_path, f"{k} is on the critical path")
        for k in spec["slack_us"]:
            check(k not in on_path, f"{k} is off the critical path")
        check(dag["edge_counts"]["event_wait"] >= len(spec["cross_stream_edges_per_iteration"]) * args.iters,
              "recorded event edges", f"{dag['edge_counts']['event_wait']} event_wait edges")
        check(dag["edge_counts"]["inferred"] == 0, "nothing inferred")
        want = spec["critical_path_us_per_iteration"] * args.iters * 1000
        busy = dag["critical_path_busy_ns"]
        check(abs(busy - want) <= 0.03 * want, "critical path busy time = iterations x designed path",
              f"{busy / 1e3:.1f} us vs {want / 1e3:.1f} us")
        # Per-kernel medians from dag.json's kernel_slack (the per-node rows moved to --slack-db, issue 32).
        for k, slack_us in spec["slack_us"].items():
            medians = [e["median_slack_ns"] for e in dag["kernel_slack"] if base(e["name"]) == k]
            med = medians[0] / 1e3 if medians else -1
            check(abs(med - slack_us) <= 0.10 * slack_us, f"{k} slack ~ {slack_us} us", f"median {med:.1f} us")
    print(f"{'FAILED' if fails else 'OK'}: {args.out}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
