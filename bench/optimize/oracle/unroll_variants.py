#!/usr/bin/env python3
"""Every single-loop unroll variant of a naive kernel: the brute-force oracle's space (issue 27).

    unroll_variants.py KERNEL.cu OUTDIR

For each `for` loop inside a `__global__` function that has no pragma yet, and each factor of FACTORS (the
deterministic proposer's 2-8, then 16 and a bare `#pragma unroll`), writes OUTDIR/<stem>-L<line>-x<factor>.cu
(the pragma on its own line before the loop, indented as the loop) and OUTDIR/variants.tsv
(file, loop line, factor). The proposer's space is a subset of this one, so the oracle's best is at least as good
as any single unroll the proposer could choose.
"""
import pathlib
import re
import sys

FACTORS = ["2", "3", "4", "5", "6", "7", "8", "16", "full"]


def kernel_line_ranges(lines):
    """(first, last) 0-based line indices of each __global__ function's body."""
    ranges, i = [], 0
    while i < len(lines):
        if "__global__" in lines[i]:
            depth, started, j = 0, False, i
            while j < len(lines):
                for ch in lines[j]:
                    if ch == "{":
                        depth, started = depth + 1, True
                    elif ch == "}":
                        depth -= 1
                if started and depth == 0:
                    break
                j += 1
            ranges.append((i, j))
            i = j
        i += 1
    return ranges


def main():
    src, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    lines = src.read_text().split("\n")
    rows = []
    for first, last in kernel_line_ranges(lines):
        for i in range(first, last + 1):
            m = re.match(r"^(\s*)(.*?)\bfor\s*\(", lines[i])
            if not m or m.group(2).strip():  # only loops that start their line (as the proposer places pragmas)
                continue
            if i > 0 and lines[i - 1].strip().startswith("#pragma"):
                continue
            for f in FACTORS:
                pragma = m.group(1) + ("#pragma unroll" if f == "full" else f"#pragma unroll {f}")
                name = f"{src.stem}-L{i + 1}-x{f}.cu"
                (out / name).write_text("\n".join(lines[:i] + [pragma] + lines[i:]))
                rows.append((name, i + 1, f))
    with open(out / "variants.tsv", "w") as t:
        for r in rows:
            t.write("\t".join(map(str, r)) + "\n")
    print(f"{src.name}: {len(rows)} variants")


main()
