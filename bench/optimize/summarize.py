#!/usr/bin/env python3
"""Summary tables of bench/optimize/gpu_suite.sh: hostile (expected gate vs the gate that rejected) and naive
(kernel speedup, decision, geometric mean). Reads the optimize.json files under the suite folder."""
import json
import math
import pathlib
import sys


def load(path):
    try:
        return json.loads(path.read_text())
    except Exception:
        return None


def tail(path, n=3):
    try:
        return " | ".join(path.read_text().strip().splitlines()[-n:])
    except Exception:
        return "(no log)"


def first_failed_gate(cand):
    for g in cand.get("gates", []):
        if not g.get("passed"):
            return g["gate"], g.get("reason", "")
    return "none", "passed every gate"


def hostile(root):
    h = root / "hostile"
    cases = h / "candidates" / "cases.tsv"
    if not cases.exists():
        print("hostile suite: not run")
        return 0
    print("HOSTILE SUITE (each candidate must be rejected by the expected gate)")
    print(f"{'case':<28} {'expected':<12} {'actual':<12} {'result':<6} reason")
    bad = 0
    for line in cases.read_text().splitlines():
        name, kernel, expected, _file, _what = line.split("\t")
        doc = load(h / "runs" / name / "optimize.json")
        if not doc or not doc.get("candidates"):
            actual, reason = "error", tail(h / "runs" / f"{name}.log")
        else:
            actual, reason = first_failed_gate(doc["candidates"][0])
        ok = actual == expected
        bad += not ok
        print(f"{name:<28} {expected:<12} {actual:<12} {'OK' if ok else 'FAIL':<6} {reason[:150]}")
    print(f"hostile: {bad} of {len(cases.read_text().splitlines())} not rejected by the expected gate\n")
    return bad


def naive(root):
    n = root / "naive"
    if not n.exists():
        print("naive suite: not run")
        return
    print("NAIVE SUITE (deterministic proposer: #pragma unroll)")
    print(f"{'kernel':<12} {'decision':<20} {'best cand.':<18} {'kernel x':>9} {'e2e x':>7} {'applied x':>9}  reason")
    applied = []
    for d in sorted(p for p in n.iterdir() if p.is_dir()):
        if (d / "skipped.txt").exists():
            print(f"{d.name:<12} {'skipped (time)':<20}")
            continue
        doc = load(d / "opt" / "optimize.json")
        if not doc:
            print(f"{d.name:<12} {'error':<20} {'':<18} {'':>9} {'':>7} {'':>9}  {tail(d / 'optimize.log')[:160]}")
            continue
        dec = doc.get("decision", {})
        cands = doc.get("candidates", [])
        best = max((c for c in cands if "speedup" in c), key=lambda c: c["speedup"], default=None)
        e2e = dec.get("end_to_end_speedup")
        if e2e is None:
            for c in cands:
                for g in c.get("gates", []):
                    if g["gate"] == "end_to_end":
                        e2e = g.get("evidence", {}).get("speedup")
        x = dec.get("speedup", 1.0) if dec.get("status") == "accepted" else 1.0
        applied.append(x)
        print(f"{d.name:<12} {dec.get('status', '?'):<20} {(best or {}).get('id', '-'):<18} "
              f"{(best or {}).get('speedup', float('nan')):>9.3f} {e2e if e2e is not None else float('nan'):>7.3f} {x:>9.3f}  "
              f"{dec.get('reason', '')[:120]}")
        for c in cands:
            g, r = first_failed_gate(c)
            print(f"    {c['id']:<18} {c['decision']:<20} first failed gate: {g:<12} {r[:110]}")
    if applied:
        gm = math.exp(sum(math.log(v) for v in applied) / len(applied))
        print(f"naive: geometric mean of applied kernel speedups over {len(applied)} kernels: {gm:.3f} "
              f"(1.0 where nothing was accepted)")


def main():
    root = pathlib.Path(sys.argv[1])
    bad = hostile(root)
    naive(root)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
