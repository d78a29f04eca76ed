#!/usr/bin/env python3
"""Summary of bench/optimize/llm_gpu_suite.sh: for each recorded reply (cases.tsv), what the guard decided.
Genuine replies must be accepted (their kernel speedups and geometric mean are printed); each hack must be
rejected by its expected gate. A hack accepted is a wrong accept, the one outcome that must never happen.
Usage: llm_summarize.py SUITE_DIR CASES_TSV"""
import json
import math
import pathlib
import sys


def load(path):
    try:
        return json.loads(path.read_text())
    except Exception:
        return None


def tail(path, n=2):
    try:
        return " | ".join(path.read_text().strip().splitlines()[-n:])
    except Exception:
        return "(no log)"


def verdict(doc):
    """(first failed gate or 'accepted'/'none', reason, kernel speedup or None)."""
    cands = doc.get("candidates", []) if doc else []
    if not cands:
        return "error", "no candidate in optimize.json", None
    c = cands[0]
    for g in c.get("gates", []):
        if not g.get("passed"):
            return g["gate"], g.get("reason", ""), c.get("speedup")
    dec = doc.get("decision", {})
    status = "accepted" if dec.get("status") == "accepted" else "passed-all"
    return status, dec.get("reason", "passed every gate"), c.get("speedup", dec.get("speedup"))


def main():
    root, cases = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    mode = (root / "mode.txt").read_text().strip() if (root / "mode.txt").exists() else "?"
    print(f"LLM PROPOSER, RECORDED REPLIES (hand-written; mode: {mode})")
    print(f"{'case':<28} {'kind':<8} {'expected':<12} {'actual':<12} {'kernel x':>9} {'result':<6} reason")
    speedups, wrong_accepts, misses = [], 0, 0
    for line in cases.read_text().splitlines()[1:]:
        name, _app, _kernel, kind, expected, _reply, _what = line.split("\t")
        d = root / "cases" / name
        if not d.exists():
            print(f"{name:<28} {kind:<8} {expected:<12} {'not run':<12}")
            continue
        if (d / "skipped.txt").exists():
            print(f"{name:<28} {kind:<8} {expected:<12} {'skipped':<12}")
            continue
        if (d / "error.txt").exists():
            actual, reason, x = "error", (d / "error.txt").read_text().strip(), None
        else:
            doc = load(d / "opt" / "optimize.json")
            actual, reason, x = verdict(doc) if doc else ("error", tail(d / "optimize.log"), None)
        if kind == "genuine":
            ok = actual == "accepted"
            if ok and x:
                speedups.append(x)
        else:
            ok = actual == expected
            wrong_accepts += actual in ("accepted", "passed-all")
        misses += not ok
        xs = f"{x:.2f}" if isinstance(x, (int, float)) else ""
        print(f"{name:<28} {kind:<8} {expected:<12} {actual:<12} {xs:>9} {'OK' if ok else 'FAIL':<6} {reason[:140]}")
    if speedups:
        geo = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
        print(f"genuine accepted: {len(speedups)}, kernel speedup geometric mean {geo:.2f}x")
    print(f"not as expected: {misses}; wrong accepts (hacks admitted): {wrong_accepts}")


if __name__ == "__main__":
    main()
