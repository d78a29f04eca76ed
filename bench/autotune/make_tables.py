#!/usr/bin/env python3
"""Turns a measured space (bench/autotune/spaces/NAME.json) into what the replay benchmark needs: the space
file in rocm-perf's --space format and the stand-in's lookup table (CSV: parameters..., time_ms or
"invalid: reason")."""
import json
import sys


def main():
    measured, out_space, out_table = sys.argv[1:4]
    doc = json.load(open(measured))
    names = list(doc["space"]["parameters"])
    with open(out_space, "w") as f:
        json.dump(doc["space"], f, indent=1)
    with open(out_table, "w") as f:
        f.write(",".join(names + ["time_ms"]) + "\n")
        for r in doc["results"]:
            t = f"{r['time_ms']:.6f}" if r.get("valid") else "invalid: " + r.get("reason", "?").replace(",", ";")
            f.write(",".join(str(r[n]) for n in names) + "," + t + "\n")


if __name__ == "__main__":
    main()
