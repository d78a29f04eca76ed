#!/usr/bin/env python3
"""After anchor_report.py: rewrites bench/RESULTS.md's section "Against Kernel Tuner's own strategies (issue 30)"
from the anchor folder's summary.json and table.md and the report's --results-snippet (the compact table), with
the seeds each strategy ran per budget (counted from the run files, seeds 0-49) and each target of issue 30 met
or not met; and replaces the registrations of bench/figures/autotune_anchor.jsonl by the snippet's (.jsonl
beside it), keeping its comment line, plus the two thresholds written in the targets list (exempt).

Usage (repository root): anchor_results_section.py --folder bench/results/2026-11-29/autotune/kernel_tuner_anchor_2026-11-29
                           --snippet /tmp/snippet.md --runs RUNS.jsonl ... --intro INTRO.md
--runs: the run files the table was made from (the seeds per cell are counted from them; default: the folder's
kt_runs.jsonl and ours/*.jsonl); --intro: the section's text between its heading line and the coverage (what ran,
where, what changed in the search), with {folder} standing for --folder; --heading: the heading's text after
"(issue 30), ".
Then: python3 scripts/check_figures.py (or ctest -R figures).
"""
import argparse
import collections
import glob
import json
import os
import sys


def coverage_lines(paths):
    seeds = collections.defaultdict(set)
    for path in paths:
        for r in map(json.loads, open(path)):
            if "strategy" in r and r["seed"] < 50:
                seeds[(r["strategy"], float(r["budget_pct"]), r["space"])].add(r["seed"])
    by = collections.defaultdict(dict)
    for (s, b, sp), x in seeds.items():
        by[(s, b)][sp] = len(x)
    out = []
    for (s, b), cells in sorted(by.items()):
        counts = sorted(cells.values())
        out.append(f"- {s}, {b:g}%: {len(cells)} of 14 spaces, {counts[0]}-{counts[-1]} seeds per space "
                   f"({sum(counts)} runs)")
    return "\n".join(out)


ap = argparse.ArgumentParser()
ap.add_argument("--folder", required=True)
ap.add_argument("--snippet", required=True)
ap.add_argument("--root", default=".")
ap.add_argument("--runs", nargs="+")
ap.add_argument("--intro")
ap.add_argument("--heading", default="2026-11-28, partial")
ap.add_argument("--middle", help="text after the coverage list (how to complete it, what changed in the search)")
ap.add_argument("--overhead", help="the overhead target's line(s) of the targets list")
ap.add_argument("--coverage-note", help="the line above the coverage list when it is short of 50 seeds")
args = ap.parse_args()
root, R, snippet = args.root, args.folder, args.snippet
coverage = coverage_lines([os.path.join(root, p) for p in args.runs] if args.runs else
                          [os.path.join(root, R, "kt_runs.jsonl")] + sorted(glob.glob(os.path.join(root, R, "ours", "*.jsonl"))))
doc = open(f"{root}/bench/RESULTS.md").read()
start = doc.index("### Against Kernel Tuner's own strategies (issue 30)")
# The section ends at the next heading of its level or above.
ends = [i for i in (doc.find("\n## ", start), doc.find("\n### ", start + 1)) if i != -1]
end = min(ends) + 1
summary = json.load(open(f"{root}/{R}/summary.json"))
checks = summary["targets"]
kinds = collections.OrderedDict()
for c in checks:
    kinds.setdefault(c["target"], []).append(c)
lines = []
for t, cs in kinds.items():
    met = [c for c in cs if c["met"]]
    seeds = {r["id"]: r["seeds"] for r in summary["summary"]}
    def cell(c):
        ours = seeds.get(f"{c['space']} {c['budget_pct']:g}% rocm-perf model")
        ref = seeds.get(f"{c['space']} {c['budget_pct']:g}% {c.get('reference')}")
        return (f"{c['space']} {c['budget_pct']:g}% (ours {ours} seeds" +
                (f", {c['reference']} {ref})" if c.get("reference") else ")"))
    notmet = [cell(c) for c in cs if not c["met"]]
    if len(cs) == 1 and "ours_runs" in cs[0]:
        lines.append(f"- {t}: **{'met' if cs[0]['met'] else 'not met'}** ({cs[0]['ours_runs']} runs)")
    else:
        lines.append(f"- {t}: met in {len(met)} of {len(cs)} cells" + (f"; **not met** in {', '.join(notmet)}" if notmet else ""))
cells_kt = {(r["space"], r["budget_pct"]) for r in summary["summary"] if r["strategy"] != "rocm-perf model"}
cells_ours = {(r["space"], r["budget_pct"]) for r in summary["summary"] if r["strategy"] == "rocm-perf model"}
missing = sorted(cells_kt - cells_ours)
if missing:
    lines.append("- Not evaluated (no runs of ours yet): " + ", ".join(f"{sp} {b:g}%" for sp, b in missing))
complete = all(" 14 of 14 spaces, 50-50 seeds" in l for l in coverage.splitlines()) and len(coverage.splitlines()) == 18
coverage_head = ("**Coverage: 50 seeds (0-49) for every strategy, ours included, on every space and budget.** Seeds "
                 "per cell:" if complete else
                 "**Coverage is short of the issue's 50 seeds** (seeds 0-49 planned; the two cores were shared with "
                 "several builds\nall session, load average 13-16, and these runs ran under `nice -n 19`). Seeds "
                 "per cell, counted in `table.md`:")
batch = os.path.join(root, R, "gpu_batch", "batch.txt")
batch_note = (f"its run is recorded in `{R}/gpu_batch/` (`env_check.txt`: what the machine had; `batch.txt`: "
              "what ran and what was skipped)" if os.path.exists(batch) else "not run yet")
pooled = open(f"{root}/{R}/table.md").read()
pooled = pooled[pooled.index("Six hub convolution spaces pooled"):pooled.index("Targets (issue 30):")].strip()
default_intro = """Our search (`--strategy model`) and the strategies of Kernel Tuner (version 1.4) in simulation mode on the same 14 measured
spaces (our GEMM and convolution measured on the H100; the benchmark hub's twelve brute-forced caches), budgets
matched as Kernel Tuner counts `max_fevals`: B unique configurations, failed ones included, B = 2% (or 5%) of the
valid configurations. CPU only (the shared 2-core host). Raw per-seed runs with date, machine, commands and commits,
the full table with every strategy, the plots (`plots/SPACE_2pct.png`, `plots/SPACE_5pct.png`: mean best ratio
against evaluations, ours, the two Kernel Tuner strategies with the highest score there and random search's exact
expectation) and how each figure is computed: `{folder}/`
(`README.md`, `table.md`, `summary.json`, `plots/`)."""
intro = (open(args.intro).read().strip() if args.intro else default_intro).replace("{folder}", R)
middle = (open(args.middle).read().strip() if args.middle else """`bench/autotune/kt_anchor_batch.sh` completes every strategy and ours at 50 seeds in one call on a 64-core
machine (`bench/autotune/kt_anchor_pack.sh` packs what it needs; it reports and skips dual_annealing and
bayes_opt where scipy or scikit-learn is missing); """ + batch_note + """.

**The search is unchanged** (work item 1 of issue 30): three changes aimed at the runs that end in a runner-up
basin were screened on tuning seeds 0-9 and held-out seeds 100-104; none was ahead on both
(`bench/results/2026-11-28/autotune/kernel_tuner_anchor_2026-11-28/screening/README.md`).""")
overhead = (open(args.overhead).read().strip() if args.overhead else """- Search overhead under 50 ms per configuration at 20,000 configurations: met (measured earlier, `overhead_20000.txt`
  in the same folder; the search is unchanged since).""")
if args.coverage_note and not complete:
    coverage_head = open(args.coverage_note).read().strip()
text = f"""### Against Kernel Tuner's own strategies (issue 30), {args.heading}

{intro}

{coverage_head}

{coverage}

{middle}

Targets of issue 30, as first defined, on the seeds above (each cell in `table.md`, "Targets"):

{chr(10).join(lines)}
{overhead}

{pooled}

Columns: median and 90th percentile of best found / optimum over seeds, with bootstrap 95% intervals; score: the
methodology score of Willemsen et al. (mean over the budget of (random(t) - best(t)) / (random(t) - optimum),
random(t) exact from the sorted space); best Kernel Tuner: per row, the strategy with the lowest median, the lowest
p90 and the highest score among those run.

{open(snippet).read().strip()}

"""
open(f"{root}/bench/RESULTS.md", "w").write(doc[:start] + text + doc[end:])

figures = os.path.join(root, "bench/figures/autotune_anchor.jsonl")
comment = open(figures).readline()
with open(figures, "w") as f:
    f.write(comment)
    f.write(open(os.path.splitext(snippet)[0] + ".jsonl").read())
    for target, figure in (("- median <= 1.02 at 2%", "1.02"), ("- p90 <= 1.05 at 2%", "1.05")):
        f.write(json.dumps({"doc": "bench/RESULTS.md", "context": target, "figure": figure,
                            "exempt": "issue 30's threshold, not a measurement"}) + "\n")
