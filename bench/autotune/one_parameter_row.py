#!/usr/bin/env python3
"""One parameter's effect at the optimum: for each value of PARAM, the time of the configuration that keeps the
optimum's other parameters, as a multiple of the optimum (missing: not in the space or failed).

Usage: one_parameter_row.py PARAM SPACE.json[.gz] ...
"""
import gzip
import json
import sys


def row(path, param):
    try:
        doc = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
        names = list(doc["space"]["parameters"])
        valid = [r for r in doc["results"] if r["valid"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"{path}: not a readable measured space ({type(e).__name__}: {e})")
    if param not in names:
        sys.exit(f"{path}: no parameter {param!r} (parameters: {', '.join(names)})")
    if not valid:
        sys.exit(f"{path}: no valid measurement, so no optimum")
    best = min(valid, key=lambda r: r["time_ms"])
    others = [n for n in names if n != param]
    same = {r[param]: r["time_ms"] / best["time_ms"] for r in valid if all(r[n] == best[n] for n in others)}
    print(f"{path}: optimum {', '.join(f'{n}={best[n]}' for n in names)}")
    for value in doc["space"]["parameters"][param]:
        print(f"  {param}={value}: " + (f"{same[value]:.2f}" if value in same else "missing"))
    slow = [v for v in same.values() if v > 2]
    if slow:
        print(f"  more than 2 times the optimum: {len(slow)} values, {min(slow):.2f} to {max(slow):.2f}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip())
    for path in sys.argv[2:]:
        row(path, sys.argv[1])
