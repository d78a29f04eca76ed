#!/usr/bin/env python3
"""Prints runs.txt as a table: run, switches, seeds, median, worst, within 5%, within 10%."""
import re
import sys
from pathlib import Path

text = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("runs.txt")).read_text()
print("| run | switches | seeds | median | worst | within 5% | within 10% |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for block in text.split("== ")[1:]:
    head = block.splitlines()[0]
    m = re.match(r"(\S+)\s+\[(.*)\]\s+seeds\s+(\S+)", head)
    s = re.search(r"median (\S+) worst (\S+) within5 (\d+) within10 (\d+)/(\d+)", block)
    if not m or not s:
        continue
    print(f"| {m.group(1)} | {m.group(2)} | {m.group(3)} | {s.group(1)} | {s.group(2)} | {s.group(3)} | {s.group(4)}/{s.group(5)} |")
