#!/usr/bin/env python3
"""Kernel Tuner's own strategies in simulation mode on the measured spaces of this benchmark: the anchor of
issue 30 (not part of CI; nothing of Kernel Tuner is kept in this repository).

Each measured space (bench/autotune/spaces/{gemm,conv}.json and spaces/kernel_tuner/*.json.gz) is written as a
Kernel Tuner cache file in a temporary folder (tune_params and cache entries; failed configurations keep their
failure string, e.g. RuntimeFailedConfig) with its restrictions in Python syntax; the script checks that Kernel
Tuner's search space holds exactly the space's configurations. Every run calls kernel_tuner.tune_kernel(...,
simulation_mode=True, strategy=S, strategy_options={"max_fevals": B, ...}) after seeding Python's and numpy's
global generators with the seed. The space and the cache are built once per space (tune_kernel would rebuild them
for every run; the same objects are deep-copied into each run, so no run sees another's state).

Budgets: Kernel Tuner's max_fevals counts unique configurations taken from the cache, failed ones included
(runners/simulation.py adds an evaluation the first time a cached key is visited; configurations outside the
restrictions are not counted). B = ceil(P% x valid configurations), P = 2 and 5. Our search is compared at the
same count: its curve is read after B unique evaluations, failed ones included (bench/autotune/anchor_report.py).

Output: JSON Lines, a header line (date, host, command, Kernel Tuner commit) then one line per run: space,
strategy, budget_pct, max_fevals, seed, evaluations (unique configurations evaluated; some strategies stop
early), improvements ([[t, ratio], ...]: evaluation count t, failed included, at which the best-so-far ratio
best/optimum improved), seconds.

Usage: kernel_tuner_anchor.py --kernel-tuner KT_CHECKOUT --python-constraint PC_CHECKOUT --out RUNS.jsonl
         [--spaces NAME ...] [--strategies NAME ...] [--budgets 2 5] [--seeds 50] [--first-seed 0] [--jobs 1]
         [--resume] [--deps DIR] [--slow-first]
Seeds run in blocks of 10 over every space, budget and strategy; --resume appends to --out, skipping the runs it
already holds (each invocation adds its header line).
Kernel Tuner needs numpy, scipy, scikit-learn (Debian python3-numpy, python3-scipy, python3-sklearn), jsonschema,
xmltodict, packaging (Debian) and python-constraint's pure-Python modules (the checkout's constraint/*.py; its
Cython build is not needed). Run with Debian's /usr/bin/python3.
"""
import argparse
import copy
import datetime
import gzip
import json
import math
import multiprocessing
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from quality_runs import pick_spaces  # noqa: E402  (the same space names everywhere)

# "Tuning the Tuner" (arXiv 2509.26300) settings for the genetic algorithm; the other strategies run with
# Kernel Tuner's defaults (hybrid_vndx and adaptive_tabu_greywolf: arXiv 2510.17899).
STRATEGIES = {
    "random_sample": {},
    "genetic_algorithm": {"popsize": 20, "maxiter": 150, "method": "single_point", "mutation_chance": 5},
    "simulated_annealing": {},
    "dual_annealing": {},
    "greedy_ils": {},
    "bayes_opt": {},
    "hybrid_vndx": {},
    "adaptive_tabu_greywolf": {},
}


def load_space(path):
    return json.load(gzip.open(path) if path.endswith(".gz") else open(path))


def python_restriction(text):
    """rocm-perf's restriction syntax (C operators) in Python syntax."""
    text = text.replace("&&", " and ").replace("||", " or ")
    return re.sub(r"!(?!=)", " not ", text)


def valid_count(doc):
    return sum(1 for r in doc["results"] if r["valid"])


def write_cache(doc, name, folder):
    """The measured space as a Kernel Tuner cache file; returns (path, tune_params, restrictions, optimum)."""
    params = doc["space"]["parameters"]
    names = list(params)
    cache = {}
    for r in doc["results"]:
        key = ",".join(str(r[n]) for n in names)
        entry = {n: r[n] for n in names}
        entry["time"] = r["time_ms"] if r["valid"] else "RuntimeFailedConfig"
        cache[key] = entry
    path = os.path.join(folder, f"{name}.json")
    with open(path, "w") as f:
        json.dump({"device_name": "simulated", "kernel_name": name, "problem_size": [1], "tune_params_keys": names,
                   "tune_params": params, "objective": "time", "cache": cache}, f)
    optimum = min(r["time_ms"] for r in doc["results"] if r["valid"])
    return path, params, [python_restriction(r) for r in doc["space"]["restrictions"]], optimum


_STATE = {}


def init_worker(kt_path, pc_path, meta_path, deps=None):
    sys.path[:0] = [kt_path, pc_path, meta_path]
    if deps:  # fallbacks only: a module the interpreter already has is taken from there
        sys.path.append(deps)
    import warnings
    warnings.filterwarnings("ignore")
    import kernel_tuner.interface as interface
    import kernel_tuner.util as util
    _STATE["interface"] = interface
    # Built once per space, copied into each run.
    built, read = {}, {}
    real_space, real_read = interface.Searchspace, util.read_cache

    def searchspace(tune_params, restrictions, *a, **kw):
        key = json.dumps([tune_params, restrictions], default=str)
        if key not in built:
            built[key] = real_space(tune_params, restrictions, *a, **kw)
        return copy.deepcopy(built[key])

    def read_cache(path, open_cache=True):
        if path not in read:
            read[path] = real_read(path, open_cache=False)
        return copy.deepcopy(read[path])

    interface.Searchspace = searchspace
    util.read_cache = read_cache


def run_one(job):
    space, strategy, pct, max_fevals, seed, cache_path, params, restrictions, optimum = job
    interface = _STATE["interface"]
    import numpy as np
    random.seed(seed)
    np.random.seed(seed)
    options = dict(STRATEGIES[strategy], max_fevals=max_fevals)
    start = time.perf_counter()
    results, _ = interface.tune_kernel(space, "", [1], [], params, restrictions=restrictions, cache=cache_path,
                                       simulation_mode=True, strategy=strategy, strategy_options=options,
                                       quiet=True, verbose=False)
    seconds = time.perf_counter() - start
    names = list(params)
    seen, improvements, best = set(), [], math.inf
    for r in results:
        key = tuple(r[n] for n in names)
        if key in seen:
            continue
        seen.add(key)
        t = r.get("time")
        if "__error__" not in r and isinstance(t, (int, float)) and t / optimum < best:
            best = t / optimum
            improvements.append([len(seen), round(best, 9)])
    return {"space": space, "strategy": strategy, "budget_pct": pct, "max_fevals": max_fevals, "seed": seed,
            "evaluations": len(seen), "improvements": improvements, "seconds": round(seconds, 3)}


def git_commit(path):
    try:
        return subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel-tuner", required=True, help="a Kernel Tuner checkout (the folder holding kernel_tuner/)")
    ap.add_argument("--python-constraint", required=True, help="a python-constraint checkout (holding constraint/)")
    ap.add_argument("--kernel-tuner-commit", default="", help="recorded in the header when the checkout has no .git")
    ap.add_argument("--out", required=True)
    ap.add_argument("--spaces", nargs="+")
    ap.add_argument("--strategies", nargs="+", default=list(STRATEGIES), choices=list(STRATEGIES))
    ap.add_argument("--budgets", nargs="+", type=float, default=[2, 5])
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--resume", action="store_true", help="append to --out, skipping the runs already there")
    ap.add_argument("--deps", help="a folder of pure-Python modules Kernel Tuner imports (jsonschema, attr, "
                    "pyrsistent, packaging, xmltodict), searched after the interpreter's own")
    ap.add_argument("--slow-first", action="store_true",
                    help="with --jobs: start the slowest runs first (bayes_opt, hybrid_vndx, large budgets) so "
                         "that a time limit cuts the cheap ones; output order is completion order")
    args = ap.parse_args()
    kt, pc = os.path.abspath(args.kernel_tuner), os.path.abspath(args.python_constraint)
    for path, what in ((os.path.join(kt, "kernel_tuner", "interface.py"), "Kernel Tuner"),
                       (os.path.join(pc, "constraint", "problem.py"), "python-constraint")):
        if not os.path.isfile(path):
            sys.exit(f"kernel_tuner_anchor: {path} not found: is that a {what} checkout?")
    spaces, names = pick_spaces(args.spaces, "kernel_tuner_anchor", list_known=True)
    work = tempfile.mkdtemp(prefix="kt_anchor_")
    # Kernel Tuner reads its own version from package metadata; a checkout has none.
    meta = os.path.join(work, "meta")
    os.makedirs(os.path.join(meta, "kernel_tuner-0.0.0.dist-info"))
    with open(os.path.join(meta, "kernel_tuner-0.0.0.dist-info", "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: kernel_tuner\nVersion: 0.0.0\n")
    deps = os.path.abspath(args.deps) if args.deps else None
    init_worker(kt, pc, meta, deps)
    from kernel_tuner.searchspace import Searchspace
    cells = []
    for name in names:
        doc = load_space(spaces[name])
        cache_path, params, restrictions, optimum = write_cache(doc, name, work)
        size = Searchspace(params, restrictions, 1024).size
        if size != len(doc["results"]):
            sys.exit(f"kernel_tuner_anchor: {name}: Kernel Tuner's space has {size} configurations, the measured "
                     f"space {len(doc['results'])}")
        valid = valid_count(doc)
        for pct in args.budgets:
            cells.append((name, pct, math.ceil(pct / 100 * valid), cache_path, params, restrictions, optimum))
    # Seeds in blocks of 10 over every cell, so a run stopped early still covers every space and strategy.
    done = set()
    if args.resume and os.path.exists(args.out):
        with open(args.out) as f:
            for r in map(json.loads, f):
                if "strategy" in r:
                    done.add((r["space"], r["strategy"], r["budget_pct"], r["seed"]))
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    jobs = []
    for block in range(0, len(seeds), 10):
        for name, pct, budget, cache_path, params, restrictions, optimum in cells:
            for strategy in args.strategies:
                for seed in seeds[block:block + 10]:
                    if (name, strategy, pct, seed) not in done:
                        jobs.append((name, strategy, pct, budget, seed, cache_path, params, restrictions, optimum))
    if args.slow_first:
        weight = {"bayes_opt": 100, "hybrid_vndx": 10}
        jobs.sort(key=lambda j: (-weight.get(j[1], 1) * j[3], j[4]))  # stable: seeds stay in order
    header = {"header": True,
              "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "host": os.uname().nodename, "cpus": os.cpu_count(), "command": " ".join(sys.argv),
              "kernel_tuner_commit": git_commit(kt) or args.kernel_tuner_commit,
              "rocm_perf_lab_commit": git_commit(HERE), "strategy_options": STRATEGIES,
              "budget": "max_fevals = ceil(P% x valid configurations): unique configurations, failed ones included"}
    with open(args.out, "a" if args.resume else "w") as out:
        out.write(json.dumps(header) + "\n")
        pool = multiprocessing.Pool(args.jobs, init_worker, (kt, pc, meta, deps)) if args.jobs > 1 else None
        # Completion order, so that a run stopped by a time limit loses only the runs still in flight.
        results = pool.imap_unordered(run_one, jobs) if pool else map(run_one, jobs)
        for i, r in enumerate(results):
            out.write(json.dumps(r) + "\n")
            out.flush()
            final = r["improvements"][-1][1] if r["improvements"] else None
            print(f"[{i + 1}/{len(jobs)}] {r['space']} {r['strategy']} {r['budget_pct']:g}% seed {r['seed']}: "
                  f"{r['evaluations']}/{r['max_fevals']} evaluations, best {final}, {r['seconds']} s", flush=True)


if __name__ == "__main__":
    main()
