#!/usr/bin/env python3
"""No product source names a fixed temporary folder: temporary files and folders go where TMPDIR says, through
support/temp_file.hpp's temporary_directory() (issue 28). Exit 1 naming each string literal in src/ that starts
with /tmp or /var/tmp. Python standard library only; ctest `source.temp_paths`."""
import glob
import os
import re
import sys

FIXED = re.compile(r'"(?:/var)?/tmp(?:/[^"]*)?"')


def offenders(root):
    out = []
    for path in sorted(glob.glob(os.path.join(root, "src", "**", "*"), recursive=True)):
        if not path.endswith((".cpp", ".hpp", ".c", ".h", ".cu", ".py", ".sh")):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                code = line.split("//")[0] if not path.endswith((".py", ".sh")) else line.split("#")[0]
                if FIXED.search(code):
                    out.append(f"{os.path.relpath(path, root)}:{n}: {line.strip()}")
    return out


if __name__ == "__main__":
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    found = offenders(root)
    for o in found:
        print(f"FAIL {o}: a fixed temporary folder; use temporary_directory() (support/temp_file.hpp)", file=sys.stderr)
    sys.exit(1 if found else 0)
