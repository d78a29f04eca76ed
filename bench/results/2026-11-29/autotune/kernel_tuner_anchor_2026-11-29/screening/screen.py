#!/usr/bin/env python3
"""screen.py VARIANT OUT.jsonl --env K=V ... --seeds a b --spaces ... --budgets 2 5 --jobs 2 [--keep-stderr PREFIX]"""
import argparse, json, os, subprocess, concurrent.futures, threading, math
ap = argparse.ArgumentParser()
ap.add_argument("variant"); ap.add_argument("out")
ap.add_argument("--bin", default="/tmp/at30/bin/x1")
ap.add_argument("--env", nargs="*", default=[])
ap.add_argument("--seeds", nargs=2, type=int, default=[0, 5])
ap.add_argument("--spaces", nargs="+", required=True)
ap.add_argument("--budgets", nargs="+", type=int, default=[2, 5])
ap.add_argument("--jobs", type=int, default=2)
ap.add_argument("--keep-stderr", default=None, help="keep the program's stderr lines starting with this in a log field")
a = ap.parse_args()
env = dict(os.environ); env.update(kv.split("=", 1) for kv in a.env)
done = set()
if os.path.exists(a.out):
    for l in open(a.out):
        r = json.loads(l); done.add((r["variant"], r["space"], r["budget_pct"], r["seed"]))
tasks = [(sp, b, s) for b in a.budgets for sp in a.spaces for s in range(*a.seeds) if (a.variant, sp, b, s) not in done]
lock = threading.Lock()
def run(t):
    sp, b, s = t
    p = subprocess.run(["nice", "-n", "10", a.bin, f"/tmp/at30/spaces/{sp}.json", "--seeds", "1", "--first-seed", str(s), "--budget", f"{b}%"], env=env, capture_output=True, text=True)
    r = json.loads(p.stdout.splitlines()[0])
    rec = {"variant": a.variant, "env": a.env, "space": sp, "budget_pct": b, "seed": s, "evaluations": r["evaluations"], "improvements": r["improvements"]}
    if a.keep_stderr: rec["log"] = [l for l in p.stderr.splitlines() if l.startswith(a.keep_stderr)]
    with lock, open(a.out, "a") as f: f.write(json.dumps(rec) + "\n")
with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex: list(ex.map(run, tasks))
