#!/usr/bin/env python3
"""anchor_results_section.py names a missing input and exits 1, without a traceback and without touching bench/RESULTS.md."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(HERE, "anchor_results_section.py")


def run(*extra):
    with tempfile.TemporaryDirectory() as tmp:
        snippet = os.path.join(tmp, "section.md")
        p = subprocess.run([sys.executable, SCRIPT, "--root", ROOT, "--snippet", snippet, *extra],
                           capture_output=True, text=True)
        return p, os.path.exists(snippet)


def expect_named(p, wrote, name):
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr, p.stderr
    assert name in p.stderr and "no such file" in p.stderr, p.stderr
    assert not wrote


before = open(os.path.join(ROOT, "bench", "RESULTS.md")).read()
missing = os.path.join(tempfile.gettempdir(), "rpl-no-such-dir", "results_section.jsonl")
p, wrote = run("--folder", "no/such/report", "--keep-text", "--previous-snippet", missing)
expect_named(p, wrote, missing)
p, wrote = run("--folder", "no/such/report")
expect_named(p, wrote, "no/such/report/summary.json")
p, wrote = run("--folder", "no/such/report", "--keep-text")
assert p.returncode != 0 and "go together" in p.stderr, p.stderr
assert open(os.path.join(ROOT, "bench", "RESULTS.md")).read() == before
print("anchor_results_section: missing inputs are named; 3 cases")
