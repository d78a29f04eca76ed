#!/usr/bin/env python3
"""Every docs/ page that mentions AMD behaviour (AMD, ROCm, HIP, rocprofv3, rocpd tools) carries the line saying it is
unvalidated on AMD hardware: no AMD GPU has been available to this project (issue 28). Exit 1 naming the pages
without it. Python standard library only; ctest `docs.amd_unvalidated`."""
import glob
import os
import re
import sys

LINE = "> **Unvalidated on AMD hardware.**"
MENTIONS = re.compile(r"\b(AMD|ROCm|HIP|rocprofv3|hipcc|MI\d{3}X?|gfx9\w*)\b")


def missing(root):
    out = []
    for path in sorted(glob.glob(os.path.join(root, "docs", "*.md"))):
        text = open(path, encoding="utf-8").read()
        if MENTIONS.search(text) and LINE not in text:
            out.append(os.path.relpath(path, root))
    return out


if __name__ == "__main__":
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    pages = missing(root)
    for p in pages:
        print(f"FAIL {p} describes AMD behaviour without the line '{LINE} ...'", file=sys.stderr)
    sys.exit(1 if pages else 0)
