#!/usr/bin/env python3
"""Screen a search variant: autotune_quality (a snapshot binary) over spaces x budgets x seeds, env switches.
Usage: screen.py NAME BINARY OUT.jsonl --seeds A B --spaces ... --budgets 2 5 [--env K=V ...] [--jobs 2]"""
import argparse, concurrent.futures, json, os, subprocess, sys
ap = argparse.ArgumentParser()
ap.add_argument("name"); ap.add_argument("binary"); ap.add_argument("out")
ap.add_argument("--seeds", nargs=2, type=int, required=True)
ap.add_argument("--spaces", nargs="+", required=True)
ap.add_argument("--budgets", nargs="+", default=["2", "5"])
ap.add_argument("--env", nargs="*", default=[])
ap.add_argument("--jobs", type=int, default=2)
ap.add_argument("--chunk", type=int, default=5)
a = ap.parse_args()
env = dict(os.environ); env.update(kv.split("=", 1) for kv in a.env)
SP = "/tmp/at-work/spaces"
tasks = [(s, b, f) for b in a.budgets for s in a.spaces for f in range(a.seeds[0], a.seeds[1], a.chunk)]
def run(t):
    s, b, f = t
    n = min(a.chunk, a.seeds[1] - f)
    p = subprocess.run(["nice", "-n", "19", a.binary, f"{SP}/{s}.json", "--seeds", str(n), "--first-seed", str(f),
                        "--budget", f"{b}%"], env=env, capture_output=True, text=True)
    if p.returncode: sys.exit(p.stderr)
    return s, b, [json.loads(l) for l in p.stdout.splitlines() if l.strip() and '"summary"' not in l]
with open(a.out, "a") as out, concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
    for s, b, runs in pool.map(run, tasks):
        for r in runs:
            out.write(json.dumps({"variant": a.name, "env": a.env, "space": s, "budget_pct": int(b), **r}) + "\n")
        out.flush()
        print(a.name, s, b, [round(r["ratio"], 3) for r in runs], flush=True)
