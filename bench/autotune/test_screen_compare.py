#!/usr/bin/env python3
"""screen_compare.py --quantiles against a table computed independently: session 24's rud2 held-out runs and the
rule table written from them (bench/results/2026-12-02/autotune/issue30_runner_up_descent_2026-12-02/), cell by
cell: median, p90 and runs at the optimum of both variants, and their sums over the six cells."""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RUNS = os.path.join(ROOT, "bench/results/2026-12-02/autotune/issue30_runner_up_descent_2026-12-02")


def main():
    out = subprocess.run([sys.executable, os.path.join(HERE, "screen_compare.py"),
                          os.path.join(RUNS, "heldout_device.jsonl"), os.path.join(RUNS, "heldout_local_2pct.jsonl"),
                          "--cells", "--quantiles"], check=True, capture_output=True, text=True).stdout
    got = {}
    cell = None
    for line in out.splitlines():
        m = re.match(r"^  (\S+) +(\d+)% n=(\d+):", line)
        if m:
            cell = (m.group(1), m.group(2), m.group(3))
        m = re.match(r"^    median (\S+) vs (\S+); p90 (\S+) vs (\S+); at the optimum (\d+) vs (\d+)$", line)
        if m:
            got[cell] = m.groups()
    want = {}
    with open(os.path.join(RUNS, "heldout_rule_table.txt")) as f:
        for line in f:
            m = re.match(r"^(\S+) (\d+)%: (\d+) \| (\S+) / (\S+) \| (\S+) / (\S+) \| (\d+) / (\d+)$", line)
            if m:
                want[m.group(1, 2, 3)] = m.group(4, 5, 6, 7, 8, 9)
    failures = []
    if len(want) != 6:
        failures.append(f"the rule table has {len(want)} cells, not 6")
    for cell, values in want.items():
        if got.get(cell) != values:
            failures.append(f"{cell}: screen_compare gives {got.get(cell)}, the table {values}")
    total = re.search(r"^  runs at the optimum: (\d+) vs (\d+)$", out, re.M)
    if not total or total.groups() != ("167", "150"):
        failures.append(f"the six cells' runs at the optimum: {total and total.groups()}, not 167 vs 150")
    for f in failures:
        print("FAIL", f)
    print(f"screen_compare --quantiles: {len(want)} cells checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
