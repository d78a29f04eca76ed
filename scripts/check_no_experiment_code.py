#!/usr/bin/env python3
"""Experiments that were not adopted keep their results in the repository, not their code (issue 28): fails when
a tracked file ends in .patch or .diff, naming each. Run from anywhere inside the checkout."""
import subprocess
import sys

root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True).stdout.strip()
files = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True, check=True).stdout.split("\n")
found = [f for f in files if f.endswith((".patch", ".diff"))]
for f in found:
    print(f"{f}: experiment code in the repository; keep the results and say in the README what the code changed")
sys.exit(1 if found else 0)
