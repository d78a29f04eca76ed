#!/usr/bin/env python3
"""Compares two `rocm-perf analyze` output directories field by field (issue 32's equivalence proof).

  bench/compare_analyze_outputs.py OLD_DIR NEW_DIR [--slack-db FILE]

Every JSON output (profile.json, dag.json, analysis.json, roofline.json) is compared leaf by leaf; the only
differences allowed are the ones the contract changed: dag.json's schema_version (1.0 -> 1.1) and its per-node
rows ("nodes"), which moved to the --slack-db table: with --slack-db, OLD_DIR's dag.json node rows are compared
with that table row by row (names resolved on both sides). report.html, where OLD_DIR has one, is compared byte
for byte. Prints one line per file and exits 1 on any difference."""
import json
import sqlite3
import sys
from pathlib import Path

ALLOWED = {("dag.json", "schema_version"), ("dag.json", "nodes")}


def leaves(value, path=""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, f"{path}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, f"{path}/{i}")
    else:
        yield path, value


def resolve_names(dag):
    """dag.json rows name kernels by index into "names", which lists only the names its rows use: compare the
    names themselves."""
    dag = dict(dag)
    names = dag.pop("names", [])
    for table in ("critical_path", "nodes"):
        if table in dag:
            col = dag[table]["columns"].index("name")
            rows = [list(r) for r in dag[table]["rows"]]
            for r in rows:
                r[col] = names[r[col]]
            dag[table] = {"columns": dag[table]["columns"], "rows": rows}
    return dag


def compare_json(name, old, new):
    if name == "dag.json":
        old, new = resolve_names(old), resolve_names(new)
    top_old = {k for k in old}
    diffs = []
    for k in sorted(top_old | set(new)):
        if (name, k) in ALLOWED:
            continue
        a, b = dict(leaves(old.get(k), k)), dict(leaves(new.get(k), k))
        for p in sorted(set(a) | set(b)):
            if a.get(p, "<missing>") != b.get(p, "<missing>"):
                diffs.append(f"{p}: {a.get(p, '<missing>')!r} != {b.get(p, '<missing>')!r}")
    count = sum(1 for k in old if (name, k) not in ALLOWED for _ in leaves(old[k]))
    return count, diffs


NODE_COLUMNS = ["kind", "name", "process", "id", "stream", "start_ns", "duration_ns", "earliest_start_ns", "slack_ns",
                "on_critical_path"]


def old_node_rows(old_dir, old_dag):
    """The per-node rows, names resolved: from a dag.json 1.0 ("nodes"), else from node_rows.json (goldens)."""
    if "nodes" in old_dag:
        assert old_dag["nodes"]["columns"] == NODE_COLUMNS, old_dag["nodes"]["columns"]
        names = old_dag["names"]
        return [[names[v] if i == 1 else v for i, v in enumerate(r)] for r in old_dag["nodes"]["rows"]]
    doc = json.loads((old_dir / "node_rows.json").read_text())
    assert doc["columns"] == NODE_COLUMNS, doc["columns"]
    return doc["rows"]


def slack_db_rows(slack_db):
    """The --slack-db table's rows in the same form (names resolved), in row order."""
    db = sqlite3.connect(f"file:{slack_db}?mode=ro", uri=True)
    names = dict(db.execute("SELECT id, name FROM rpl_node_slack_names"))
    cur = db.execute(f"SELECT {', '.join(NODE_COLUMNS)} FROM rpl_node_slack ORDER BY rowid")
    return [[names[v] if i == 1 else v for i, v in enumerate(r)] for r in cur]


def compare_rows(old_rows, slack_db):
    new_rows = slack_db_rows(slack_db)
    diffs = [f"row {i}: {a} != {b}" for i, (a, b) in enumerate(zip(old_rows, new_rows)) if list(a) != list(b)][:20]
    if len(old_rows) != len(new_rows):
        diffs.append(f"rows: {len(old_rows)} before != {len(new_rows)} in {slack_db}")
    return len(old_rows), diffs


def main():
    args = sys.argv[1:]
    slack_db = None
    if "--slack-db" in args:
        i = args.index("--slack-db")
        slack_db = args[i + 1]
        del args[i:i + 2]
    old_dir, new_dir = map(Path, args)
    failed = False
    for name in ["profile.json", "dag.json", "analysis.json", "roofline.json"]:
        old = json.loads((old_dir / name).read_text())
        new = json.loads((new_dir / name).read_text())
        count, diffs = compare_json(name, old, new)
        extra = ""
        if name == "dag.json":
            extra = f"; schema_version {old.get('schema_version')} -> {new.get('schema_version')}"
            if slack_db:
                rows, row_diffs = compare_rows(old_node_rows(old_dir, old), slack_db)
                diffs += row_diffs
                extra += f"; {rows} node rows compared with {Path(slack_db).name}"
        print(f"{name}: {count} leaf fields compared, {len(diffs)} differ{extra}")
        for d in diffs[:20]:
            print(f"  {d}")
        failed |= bool(diffs)
    old_html, new_html = (old_dir / "report.html"), (new_dir / "report.html")
    if old_html.exists():
        same = new_html.exists() and old_html.read_bytes() == new_html.read_bytes()
        print(f"report.html: {'identical bytes' if same else 'differs'}")
        failed |= not same
    else:
        print(f"report.html: not in {old_dir}, not compared")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
