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
--keep-text: keep the section's own text as it stands in bench/RESULTS.md (the heading, the text before the coverage
list, the text between it and the targets list, and the overhead target's lines) and remake only what comes from the
report: the coverage list, the targets, the pooled counts and the table (for a report rerun on some cells). With it,
--previous-snippet (the .jsonl of the snippet the section shows now) names the registrations to replace; the other
registrations of autotune_anchor.jsonl (figures of the section's own text) are kept.
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
ap.add_argument("--keep-text", action="store_true", help="keep the section's own text; remake only the report's parts")
ap.add_argument("--previous-snippet", help="with --keep-text: the registrations (.jsonl) of the table shown now")
args = ap.parse_args()
if args.keep_text != bool(args.previous_snippet):
    sys.exit("anchor_results_section: --keep-text and --previous-snippet go together")
root, R, snippet = args.root, args.folder, args.snippet
runs = ([("--runs", os.path.join(root, p)) for p in args.runs] if args.runs else
        [("--folder's kt_runs.jsonl", os.path.join(root, R, "kt_runs.jsonl"))] +
        [("--folder's ours/", p) for p in sorted(glob.glob(os.path.join(root, R, "ours", "*.jsonl")))])
figures = os.path.join(root, "bench/figures/autotune_anchor.jsonl")
snippet_figures = os.path.splitext(snippet)[0] + ".jsonl"
# Every input is checked before anything is read or written, so a wrong path gets its name, not a traceback, and
# bench/RESULTS.md is not rewritten while its figures' registrations are left behind.
for what, path in [("--previous-snippet", args.previous_snippet), ("--folder's summary.json", f"{root}/{R}/summary.json"),
                   ("--folder's table.md", f"{root}/{R}/table.md"), ("bench/RESULTS.md", f"{root}/bench/RESULTS.md")] + \
                  runs + [("--snippet", snippet), ("--snippet's registrations", snippet_figures),
                          ("the figure registrations", figures)]:
    if path and not os.path.isfile(path):
        sys.exit(f"anchor_results_section: {what}: {path}: no such file")
coverage = coverage_lines([path for _, path in runs])
doc = open(f"{root}/bench/RESULTS.md").read()
start = doc.index("### Against Kernel Tuner's own strategies (issue 30)")
# The section ends at the next heading of its level or above.
ends = [i for i in (doc.find("\n## ", start), doc.find("\n### ", start + 1)) if i != -1]
end = min(ends) + 1


def kept_text(section):
    """The section's own text: heading, intro (up to the coverage line), middle (after the coverage list, up to the
    targets list) and the overhead target's lines, as written now. Exits naming what it could not find."""
    lines = section.split("\n")
    try:
        heading = lines[0].split("(issue 30), ", 1)[1]
        cov = next(i for i, l in enumerate(lines) if l.startswith("**Coverage"))
        after = next(i for i in range(cov + 2, len(lines)) if not lines[i].startswith("- ")) + 1
        targets = next(i for i, l in enumerate(lines) if l.startswith("Targets of issue 30"))
        over = next(i for i in range(targets, len(lines)) if lines[i].startswith("- Search overhead"))
        over_end = next(i for i in range(over + 1, len(lines)) if not lines[i].startswith("  "))
    except (IndexError, StopIteration):
        sys.exit("anchor_results_section: --keep-text: bench/RESULTS.md's issue 30 section is not laid out as this "
                 "script writes it (heading, coverage list, targets list with the overhead line)")
    return (heading, "\n".join(lines[2:cov]).strip(), lines[cov], "\n".join(lines[after:targets]).strip(),
            "\n".join(lines[over:over_end]))


kept = kept_text(doc[start:end]) if args.keep_text else None
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


def plots_table():
    """The plots of the folder (anchor_report.py --plots), one row per space, linked from bench/RESULTS.md."""
    folder = os.path.join(root, R, "plots")
    if not os.path.isdir(folder):
        return ""
    spaces = sorted({f.rsplit("_", 1)[0] for f in os.listdir(folder) if f.endswith("pct.png")})
    link = os.path.relpath(os.path.join(R, "plots"), "bench")
    rows = "\n".join(f"| {sp} | " + " | ".join(f"![{sp} {b}%]({link}/{sp}_{b}pct.png)" for b in (2, 5)) + " |"
                     for sp in spaces)
    return f"""Plots, one per space and budget (mean best / optimum against evaluations, failed ones included: ours, the two
Kernel Tuner strategies with the highest score there, and random search's exact expectation; the same runs as the
table above, `{R}/plots/`):

| space | 2% | 5% |
| --- | --- | --- |
{rows}

"""


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
if kept:
    args.heading, intro, kept_head, middle, overhead = kept
    coverage_head = kept_head if complete else coverage_head
text = f"""### Against Kernel Tuner's own strategies (issue 30), {args.heading}

{intro}

{coverage_head}

{coverage}

{middle}

Targets of issue 30, as first defined, on the seeds above (each cell in `{R}/table.md`, "Targets"):

{chr(10).join(lines)}
{overhead}

{pooled}

Columns: median and 90th percentile of best found / optimum over seeds, with bootstrap 95% intervals; score: the
methodology score of Willemsen et al. (mean over the budget of (random(t) - best(t)) / (random(t) - optimum),
random(t) exact from the sorted space); best Kernel Tuner: per row, the strategy with the lowest median, the lowest
p90 and the highest score among those run.

{open(snippet).read().strip()}

{plots_table()}"""
open(f"{root}/bench/RESULTS.md", "w").write(doc[:start] + text + doc[end:])

comment = open(figures).readline()
thresholds = (("- median <= 1.02 at 2%", "1.02"), ("- p90 <= 1.05 at 2%", "1.05"))
kept_entries = []
if args.keep_text:
    replaced = set(open(args.previous_snippet).read().splitlines())
    kept_entries = [line for line in open(figures).read().splitlines()[1:]
                    if line not in replaced and json.loads(line).get("context") not in dict(thresholds)]
with open(figures, "w") as f:
    f.write(comment)
    f.write(open(snippet_figures).read())
    f.write("".join(line + "\n" for line in kept_entries))
    for target, figure in thresholds:
        f.write(json.dumps({"doc": "bench/RESULTS.md", "context": target, "figure": figure,
                            "exempt": "issue 30's threshold, not a measurement"}) + "\n")
