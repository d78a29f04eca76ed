#!/usr/bin/env python3
"""analyze's outputs on the example traces equal the golden outputs of the binary before issue 32
(tests/data/golden-analyze/README.md), field by field, with the per-node rows compared through --slack-db.

  test_analyze_golden.py ROCM_PERF            compare (ctest analyze.golden_outputs)
  test_analyze_golden.py --update ROCM_PERF   rewrite the goldens from ROCM_PERF's outputs, after an intended
                                              output change (say which in the commit)"""
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests/data/golden-analyze"
COMPARE = ROOT / "bench/compare_analyze_outputs.py"
sys.path.insert(0, str(COMPARE.parent))
from compare_analyze_outputs import NODE_COLUMNS, slack_db_rows  # noqa: E402


def run_analyze(rocm_perf, name, out, slack):
    subprocess.run([rocm_perf, "analyze", f"examples/traces/{name}.db", "-o", str(out), "--quiet",
                    "--what-if", "gemm|sgemm|ampere=0.5", "--slack-db", str(slack)],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def update(rocm_perf, name, out, slack):
    golden = GOLDEN / name
    for f in ["profile.json", "dag.json", "analysis.json", "roofline.json"]:
        shutil.copy(out / f, golden / f)
    (golden / "node_rows.json").write_text(json.dumps({"columns": NODE_COLUMNS, "rows": slack_db_rows(slack)}))


def main():
    updating = sys.argv[1] == "--update"
    rocm_perf = sys.argv[-1]
    failed = []
    traces = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())
    assert traces, f"no golden outputs under {GOLDEN}"
    with tempfile.TemporaryDirectory() as tmp:
        for name in traces:
            out, slack = Path(tmp) / name, Path(tmp) / f"{name}.slack.db"
            run_analyze(rocm_perf, name, out, slack)
            if updating:
                update(rocm_perf, name, out, slack)
                print(f"updated {GOLDEN / name}")
                continue
            r = subprocess.run([sys.executable, str(COMPARE), str(GOLDEN / name), str(out), "--slack-db", str(slack)],
                               capture_output=True, text=True)
            print(f"== {name}\n{r.stdout}{r.stderr}", end="")
            if r.returncode != 0:
                failed.append(name)
    if failed:
        print(f"FAILED: {', '.join(failed)} differ from the golden outputs")
        sys.exit(1)


if __name__ == "__main__":
    main()
