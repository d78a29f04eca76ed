#!/usr/bin/env python3
"""anchor_results_section.py names a missing input and exits 1, without a traceback and without rewriting what it
writes (bench/RESULTS.md and bench/figures/autotune_anchor.jsonl)."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(HERE, "anchor_results_section.py")
WRITTEN = ("bench/RESULTS.md", "bench/figures/autotune_anchor.jsonl")


def run(root, *args):
    return subprocess.run([sys.executable, SCRIPT, "--root", root, *args], capture_output=True, text=True)


def expect_named(p, name):
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr, p.stderr
    assert name in p.stderr and "no such file" in p.stderr, p.stderr


before = [open(os.path.join(ROOT, w)).read() for w in WRITTEN]
missing = os.path.join(tempfile.gettempdir(), "rpl-no-such-dir", "results_section.jsonl")
snippet = os.path.join(tempfile.gettempdir(), "rpl-no-such-dir", "results_section.md")
expect_named(run(ROOT, "--folder", "no/such/report", "--snippet", snippet, "--keep-text", "--previous-snippet", missing),
             missing)
expect_named(run(ROOT, "--folder", "no/such/report", "--snippet", snippet), "no/such/report/summary.json")
p = run(ROOT, "--folder", "no/such/report", "--snippet", snippet, "--keep-text")
assert p.returncode != 0 and "go together" in p.stderr, p.stderr
assert [open(os.path.join(ROOT, w)).read() for w in WRITTEN] == before

# A folder with its report files: without --runs its own kt_runs.jsonl is read, then the snippet and its
# registrations (.jsonl beside it). Each missing one is named, and neither written file is touched.
with tempfile.TemporaryDirectory() as root:
    for name in ("bench/RESULTS.md", "bench/figures/autotune_anchor.jsonl", "report/summary.json", "report/table.md"):
        os.makedirs(os.path.dirname(os.path.join(root, name)), exist_ok=True)
        with open(os.path.join(root, name), "w") as f:
            f.write(f"{name}\n")
    section = os.path.join(root, "report", "results_section.md")
    cases = [("report/kt_runs.jsonl", "report/kt_runs.jsonl"), ("report/results_section.md", section),
             ("report/results_section.jsonl", os.path.splitext(section)[0] + ".jsonl")]
    for created, named in cases:
        expect_named(run(root, "--folder", "report", "--snippet", section), named)
        open(os.path.join(root, created), "w").close()
    for w in WRITTEN:
        assert open(os.path.join(root, w)).read() == f"{w}\n", w
print(f"anchor_results_section: missing inputs are named; {3 + len(cases)} cases")
