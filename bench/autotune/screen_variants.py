#!/usr/bin/env python3
"""Search variants side by side on the measured spaces, in parallel: each variant is our search
(bench/autotune_quality) under a set of environment switches of a patched build (none for "base"), run on every
(space, budget, seed) asked for. One JSON line per run in OUT: variant, env, space, budget_pct, seed, evaluations,
improvements [[t, ratio], ...] (t counts failed configurations), after a header line (date, host, cpus, command,
commit, binary or pack). Runs already in OUT (same variant, space, budget, seed) are skipped, so a stopped run
resumes. screen_compare.py reads OUT.

Usage: screen_variants.py OUT --variant NAME[:K=V,K=V...] ... [--binary B | --pack DIR] [--seeds FIRST COUNT]
         [--spaces NAME ...] [--budgets 2 5] [--jobs N] [--nice 0] [--evaluations-as-budget]
--evaluations-as-budget: as in ours_batch.py (every variant of this invocation).
--pack: a folder holding ours/autotune_quality with ours/lib/ (its libraries and loader), as kt_anchor_pack.sh makes.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from quality_runs import pick_spaces, quality_command, resume_out, run_all, run_header, unpack_spaces  # noqa: E402


def parse_variant(text):
    name, _, settings = text.partition(":")
    env = dict(kv.split("=", 1) for kv in settings.split(",") if kv)
    return name, env


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--variant", nargs="+", required=True)
    ap.add_argument("--binary", default="build/bench/autotune_quality")
    ap.add_argument("--pack")
    ap.add_argument("--seeds", nargs=2, type=int, default=[200, 10], metavar=("FIRST", "COUNT"))
    ap.add_argument("--spaces", nargs="+")
    ap.add_argument("--budgets", nargs="+", type=int, default=[2, 5])
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--nice", type=int, default=0)
    ap.add_argument("--evaluations-as-budget", action="store_true",
                    help="the search also stops after B configurations evaluated, failed ones included (B: the budget), "
                         "and plans against that limit: the limit the report cuts every strategy at")
    args = ap.parse_args()
    command = quality_command(args.binary, args.pack, args.nice, "screen_variants")
    variants = [parse_variant(v) for v in args.variant]
    spaces, names = pick_spaces(args.spaces, "screen_variants")
    plain, valid = unpack_spaces(names, spaces, tempfile.mkdtemp(prefix="screen_variants_"))
    done = resume_out(args.out, lambda r: (r["variant"], r["space"], r["budget_pct"], r["seed"]) if "variant" in r
                      else None, run_header(args.pack))
    first, count = args.seeds
    # Largest budgets first, so the long runs do not trail at the end.
    tasks = [(v, sp, b, s) for s in range(first, first + count) for b in args.budgets for sp in names
             for v in variants if (v[0], sp, b, s) not in done]
    tasks.sort(key=lambda t: -math.ceil(t[2] / 100 * valid[t[1]]))
    lock = threading.Lock()
    limit = ["--evaluations-as-budget"] if args.evaluations_as_budget else []

    def run(task):
        (name, env), space, budget, seed = task
        full_env = dict(os.environ)
        full_env.update(env)
        p = subprocess.run(command + [plain[space], "--seeds", "1", "--first-seed", str(seed), "--budget",
                                      f"{budget}%", "--strategy", "model"] + limit, capture_output=True, text=True, env=full_env)
        if p.returncode != 0:
            raise RuntimeError(f"{name} {space} {budget}% seed {seed}: exit {p.returncode}: {p.stderr.strip()}")
        r = json.loads(p.stdout.splitlines()[0])
        record = {"variant": name, "env": env, "space": space, "budget_pct": budget, "seed": seed,
                  "evaluations": r["evaluations"], "improvements": r["improvements"]}
        with lock, open(args.out, "a") as f:
            f.write(json.dumps(record) + "\n")
        return record

    run_all(tasks, run, args.jobs, "screen_variants")


if __name__ == "__main__":
    main()
