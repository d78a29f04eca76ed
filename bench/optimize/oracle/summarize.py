#!/usr/bin/env python3
"""Judges unroll_oracle.sh's runs (issue 27): the deterministic proposer against the brute-force unroll oracle.

    summarize.py WORK_DIR OUT_TSV

Per kernel: the oracle's best measured replay speedup among its variants that passed equivalence (the performance
gate's median ratio, whether or not the gate admitted it), and what the proposer's run decided (the accepted
candidate's replay and end-to-end speedups). Rules, as issue 27 defines them: where the oracle gains 3% or more,
the accepted speedup is at least 95% of the oracle's; no accepted candidate is a regression (replay and
end-to-end speedup above 1). Prints one line per kernel and a verdict; exit 1 when a rule fails.
"""
import json
import pathlib
import sys


def load(path):
    try:
        return json.loads(pathlib.Path(path).read_text())
    except (OSError, ValueError):
        return None


def perf_speedup(c):
    """The performance gate's measured speedup of a candidate that got there (equivalence passed), else None."""
    for g in c.get("gates", []):
        if g["gate"] == "performance":
            return g["evidence"].get("speedup")
        if not g["passed"]:
            return None
    return None


def main():
    work, out_tsv = pathlib.Path(sys.argv[1]), sys.argv[2]
    rows, failures, judged = [], [], 0
    for d in sorted(p for p in work.iterdir() if p.is_dir()):
        k = d.name
        prop, orc = load(d / "proposer" / "stdout.json"), load(d / "oracle" / "stdout.json")
        if prop is None or orc is None:
            rows.append((k, "missing", "", "", "", "", "", "no result (see the logs)"))
            failures.append(f"{k}: no result")
            continue
        variants = [(c["id"], perf_speedup(c)) for c in orc.get("candidates", [])]
        measured = [(i, s) for i, s in variants if s is not None]
        best_id, best = max(measured, key=lambda x: x[1]) if measured else ("-", 1.0)
        dec = prop.get("decision", {})
        status = dec.get("status", "?")
        acc = dec.get("speedup") if status == "accepted" else None
        e2e = dec.get("end_to_end_speedup") if status == "accepted" else None
        verdict = "ok"
        if acc is not None and (acc <= 1 or (e2e is not None and e2e <= 1)):
            verdict = "REGRESSION accepted"
        elif best >= 1.03:
            judged += 1
            got = acc if acc is not None else 1.0
            if got < 0.95 * best:
                verdict = f"BELOW 95% of the oracle ({got / best:.3f})"
            else:
                verdict = f"ok ({got / best:.3f} of the oracle)"
        else:
            verdict = "ok (oracle gains under 3%: nothing required)"
        if not verdict.startswith("ok"):
            failures.append(f"{k}: {verdict}")
        rows.append((k, status, dec.get("candidate", "-"), f"{acc:.3f}" if acc else "-", f"{e2e:.3f}" if e2e else "-",
                     best_id, f"{best:.3f}", f"{len(measured)}/{len(variants)}", verdict))
    header = ("kernel", "proposer_decision", "accepted_candidate", "accepted_replay_speedup", "accepted_e2e_speedup",
              "oracle_best_variant", "oracle_best_speedup", "oracle_variants_measured", "verdict")
    with open(out_tsv, "w") as f:
        f.write("\t".join(header) + "\n")
        for r in rows:
            f.write("\t".join(map(str, r)) + "\n")
    for r in rows:
        print(" | ".join(map(str, r)))
    print(f"kernels: {len(rows)}; judged against the oracle (it gains >= 3%): {judged}; failures: {len(failures)}")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


sys.exit(main())
