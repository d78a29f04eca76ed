#!/usr/bin/env python3
"""Tables of scripts/gpu/optimizer_corpus.sh (issue 27): WORK OUT -> prints the summary and writes OUT/corpus.tsv,
OUT/hostile.tsv and OUT/timing.json.
corpus: each correct candidate's verdict: admitted (passed every replay gate, with its speedup), not faster
(rejected by the performance gate: a measured verdict), or WRONG REJECT (rejected by any earlier gate).
hostile: the gate that rejected each adversarial candidate against the expected one; WRONG ACCEPT when none did."""
import json
import math
import os
import pathlib
import sys

RUNTIME_OK = {"performance"}


def load(path):
    try:
        return json.loads(path.read_text())
    except Exception:
        return None


def verdict(doc):
    if not doc or not doc.get("candidates"):
        return "error", "", None, (doc or {}).get("decision", {}).get("reason", "no optimize.json")
    cand = doc["candidates"][0]
    perf = next((g for g in cand.get("gates", []) if g["gate"] == "performance"), None)
    speed = perf["evidence"].get("speedup") if perf else None
    for g in cand.get("gates", []):
        if not g.get("passed"):
            return "failed", g["gate"], speed, g.get("reason", "")
    return "passed", "", speed, "passed every replay gate"


def corpus(work, out):
    cases = work / "corpus" / "candidates" / "cases.tsv"
    if not cases.exists():
        print("corpus: not run")
        return 0
    rows, bad, speedups = [], 0, []
    print("CORPUS (correct optimizations: none may be rejected before the performance gate)")
    print(f"{'case':<26} {'kernel':<14} {'result':<13} {'speedup':>8}  reason")
    # CASES="a b" (as optimizer_corpus.sh takes it): the other cases were not run, and are neither listed nor counted
    selected = set(os.environ.get("CASES", "").split())
    skipped = 0
    for line in cases.read_text().splitlines():
        name, app, kernel, _file, rtol, what = line.split("\t")
        if selected and name not in selected:
            skipped += 1
            continue
        status, gate, speed, reason = verdict(load(work / "corpus" / "runs" / name / "optimize.json"))
        if status == "passed":
            result = "admitted"
            speedups.append(speed)
        elif status == "failed" and gate in RUNTIME_OK:
            result = "not faster"
        elif status == "error":
            result = "error"
            bad += 1
        else:
            result = "WRONG REJECT"
            bad += 1
        s = f"{speed:.3f}" if isinstance(speed, (int, float)) else "-"
        print(f"{name:<26} {kernel:<14} {result:<13} {s:>8}  {(gate + ': ') if gate else ''}{reason[:150]}")
        rows.append("\t".join([name, app, kernel, rtol, result, gate, s, reason.replace("\t", " ")[:300]]))
    (out / "corpus.tsv").write_text("case\tapp\tkernel\trtol\tresult\tgate\tspeedup\treason\n" + "\n".join(rows) + "\n")
    admitted = len(speedups)
    geo = math.exp(sum(math.log(x) for x in speedups) / admitted) if admitted else float("nan")
    print(f"corpus: {admitted} admitted (geometric mean speedup {geo:.3f}), {bad} wrong rejects or errors, of {len(rows)}"
          + (f" ({skipped} cases not selected by CASES, not run)" if skipped else ""))
    return bad


def hostile(work, out):
    cases = work / "hostile" / "candidates" / "cases.tsv"
    if not cases.exists():
        print("hostile: not run")
        return 0
    rows, bad = [], 0
    print("\nHOSTILE (each must be rejected by the expected gate)")
    print(f"{'case':<28} {'expected':<17} {'actual':<17} {'ok':<4} reason")
    for line in cases.read_text().splitlines():
        name, kernel, expected, _file, what = line.split("\t")
        status, gate, _speed, reason = verdict(load(work / "hostile" / "runs" / name / "optimize.json"))
        actual = gate if status == "failed" else ("WRONG ACCEPT" if status == "passed" else "error")
        ok = actual == expected
        bad += 0 if ok else 1
        print(f"{name:<28} {expected:<17} {actual:<17} {'yes' if ok else 'NO':<4} {reason[:150]}")
        rows.append("\t".join([name, kernel, expected, actual, "yes" if ok else "no", reason.replace("\t", " ")[:300]]))
    (out / "hostile.tsv").write_text("case\tkernel\texpected\tactual\tok\treason\n" + "\n".join(rows) + "\n")
    print(f"hostile: {len(rows) - bad} of {len(rows)} rejected by the expected gate")
    return bad


def timing(work, out):
    wall = load(work / "timing" / "wall.json")
    doc = load(work / "timing" / "opt" / "optimize.json")
    if not wall:
        print("\ntiming: not run")
        return 0
    cands = (doc or {}).get("candidates", [])
    t = {"wall_s": wall.get("wall_s"), "exit": wall.get("exit"), "candidates": len(cands),
         "decisions": [{"id": c["id"], "decision": c["decision"], "speedup": c.get("speedup"),
                        "failed_gate": next((g["gate"] for g in c["gates"] if not g["passed"]), None)} for c in cands],
         "target": "8 unroll candidates within 60 s (issue 27 section 3)"}
    (out / "timing.json").write_text(json.dumps(t, indent=1) + "\n")
    print(f"\ntiming: {t['candidates']} candidates in {t['wall_s']:.1f} s (exit {t['exit']})")
    return 0


def main():
    work, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    bad = corpus(work, out) + hostile(work, out) + timing(work, out)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
