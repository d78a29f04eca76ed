#!/usr/bin/env python3
"""Turns one space's JSON lines (driver output) into the measured-space document kept under bench/autotune/spaces."""
import argparse
import json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", required=True)
    ap.add_argument("--lines", required=True)
    ap.add_argument("--space", required=True, help="the space in rocm-perf's --space format")
    ap.add_argument("--expected", type=int, required=True, help="configurations compiled")
    ap.add_argument("--meta", required=True, help="JSON object: device, driver, nvcc, date, timings")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    results = {}
    with open(args.lines) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            results[r["index"]] = r  # a restarted run may repeat an index; the last line wins
    rows = [results[i] for i in sorted(results)]
    valid = [r for r in rows if r.get("valid")]
    doc = {
        "kind": "rocm-perf-lab measured tuning space",
        "name": args.name,
        **json.loads(args.meta),
        "space": json.load(open(args.space)),
        "configurations_compiled": args.expected,
        "configurations_measured": len(rows),
        "valid": len(valid),
        "invalid": len(rows) - len(valid),
        "best_ms": min((r["time_ms"] for r in valid), default=None),
        "results": rows,
    }
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=0)
    print(f"{args.name}: {len(rows)}/{args.expected} measured, {len(valid)} valid, best {doc['best_ms']} ms")


if __name__ == "__main__":
    main()
