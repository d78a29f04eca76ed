#!/usr/bin/env python3
"""fvscreen.py OUT.jsonl --bin BIN --variant NAME --env K=V ... --seeds a b --spaces ... --budgets 5 2 [--prior F ...]

One screening run per (space, budget, seed), in seed order: the variant first (its stderr lines starting with "fvnd"
kept in "log"), then base (the same binary, no switch) only when the variant's gate opened. When the gate stays
closed the variant's run is base's by construction (the gate is decided once, from the measurements so far, which
are base's; a closed gate changes nothing after), so base is recorded as that same run with "gate_closed_copy":
true. Base runs already in OUT or in a --prior file (same space, budget and seed) are not run again."""
import argparse, json, os, subprocess
ap = argparse.ArgumentParser()
ap.add_argument("out"); ap.add_argument("--bin", required=True); ap.add_argument("--variant", required=True)
ap.add_argument("--env", nargs="*", default=[]); ap.add_argument("--seeds", nargs=2, type=int, required=True)
ap.add_argument("--spaces", nargs="+", required=True); ap.add_argument("--budgets", nargs="+", type=int, default=[5, 2])
ap.add_argument("--prior", nargs="*", default=[])
ap.add_argument("--space-dir", default="/tmp/at30/spaces")
a = ap.parse_args()
done = set()
for f in [a.out] + a.prior:
    if os.path.exists(f):
        for l in open(f):
            r = json.loads(l); done.add((r["variant"], r["space"], r["budget_pct"], r["seed"]))
def run(env_kv, sp, b, s):
    env = dict(os.environ); env.update(kv.split("=", 1) for kv in env_kv)
    p = subprocess.run(["nice", "-n", "15", a.bin, f"{a.space_dir}/{sp}.json", "--seeds", "1", "--first-seed", str(s),
                        "--budget", f"{b}%"], env=env, capture_output=True, text=True, check=True)
    return json.loads(p.stdout.splitlines()[0]), [l for l in p.stderr.splitlines() if l.startswith("fvnd")]
def write(rec):
    with open(a.out, "a") as f: f.write(json.dumps(rec) + "\n")
for s in range(*a.seeds):
    for b in a.budgets:
        for sp in a.spaces:
            if (a.variant, sp, b, s) not in done:
                r, log = run(a.env, sp, b, s)
                write({"variant": a.variant, "env": a.env, "space": sp, "budget_pct": b, "seed": s,
                       "evaluations": r["evaluations"], "improvements": r["improvements"], "log": log})
                done.add((a.variant, sp, b, s))
            else:
                log = next(json.loads(l)["log"] for l in open(a.out) if (lambda r: (r["variant"], r["space"], r["budget_pct"], r["seed"]) == (a.variant, sp, b, s))(json.loads(l)))
                r = next(json.loads(l) for l in open(a.out) if (lambda r: (r["variant"], r["space"], r["budget_pct"], r["seed"]) == (a.variant, sp, b, s))(json.loads(l)))
            if ("base", sp, b, s) in done: continue
            if log and " closed" in log[0]:
                write({"variant": "base", "env": [], "space": sp, "budget_pct": b, "seed": s, "evaluations": r["evaluations"],
                       "improvements": r["improvements"], "gate_closed_copy": True})
            else:
                rb, _ = run([], sp, b, s)
                write({"variant": "base", "env": [], "space": sp, "budget_pct": b, "seed": s,
                       "evaluations": rb["evaluations"], "improvements": rb["improvements"]})
            done.add(("base", sp, b, s))
