#!/usr/bin/python3
"""Runs AMD's own rocpd schema and tools on databases rocm-perf wrote and checks their answers.

usage: check_amd_rocpd.py --analyze-json FILE --work-dir DIR [--amd-source DIR] [--report FILE] DB...

Part 1, AMD's SQL (always; tests/amd_rocpd/sql/ holds AMD's files, see its README):
  * every table of AMD's rocpd_tables.sql exists in each database with the same columns (name, declared type,
    NOT NULL, default, primary key) and foreign keys;
  * rocpd_metadata: schema_version 3, uuid = the table suffix, guid = rocpd_info_process.guid;
  * in a copy of the database with our views dropped, AMD's rocpd_views.sql, data_views.sql, summary_views.sql
    and marker_views.sql are created and every view is read in full; the views our writer put in the file give
    the same columns and rows as AMD's; AMD's joined views (kernels,
    memory_copies, regions, pmc_events, counters_collection, ...) keep every row of the tables below them;
  * per kernel name over all databases, AMD's `kernels` and `top_kernels` views give the dispatch count and the
    total, minimum and maximum duration that `rocm-perf analyze --json` reports.

Part 2, AMD's Python (with --amd-source: a rocprofiler-sdk source tree, the directory holding source/lib/python/
rocpd): AMD's `rocpd` package is assembled in the work directory from that tree (its .py files; __init__.py
configured as CMake would) with tests/amd_rocpd/libpyrocpd_standin.py as its compiled module, then run as a
user would run it (`python3 -m rocpd summary ...`, `python3 -m rocpd query ...`, with and without a time
window) on all the databases at once. Its CSV outputs are checked against `rocm-perf analyze --json` as above.
AMD's converters (`rocpd convert` to csv / pftrace / otf2) are C++ inside libpyrocpd and are not run.

Exit status: 0 every check passed, 1 a check failed (each failure on stderr), 2 usage, 77 part 2 asked for but
it cannot run here (the reason on stdout).
"""

import argparse
import csv
import json
import os
import shutil
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import libpyrocpd_standin as standin  # noqa: E402

SKIP = 77
VIEW_FILES = [standin.sql_schema.rocpd_views, standin.sql_schema.data_views, standin.sql_schema.summary_views,
              standin.sql_schema.marker_views]
# AMD's joined view -> the table whose rows it must keep (their INNER JOINs drop rows with missing references).
VIEW_KEEPS_TABLE = {"kernels": "rocpd_kernel_dispatch", "memory_copies": "rocpd_memory_copy",
                    "regions": "rocpd_region", "pmc_events": "rocpd_pmc_event",
                    "memory_allocations": "rocpd_memory_allocate"}


class Checks:
    def __init__(self):
        self.failures = []
        self.passed = 0

    def expect(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failures.append(what)
            print(f"FAIL: {what}", file=sys.stderr)
        return ok


def schema_variables(uuid, guid):
    v = standin.schema_jinja_variables()
    v.uuid, v.guid = uuid, guid
    return v


def load_amd_sql(kind, uuid, guid, options=standin.sql_option.none):
    return standin.load_schema(standin.sql_engine.sqlite3, kind, options, schema_variables(uuid, guid))


def quoted(name):
    return '"' + name.replace('"', '""') + '"'


def metadata_of(conn, path, checks):
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'rocpd_metadata_%'")]
    if not checks.expect(len(tables) == 1, f"{path}: one rocpd_metadata_<uuid> table (found {tables})"):
        return None
    rows = dict(conn.execute(f"SELECT tag, value FROM {quoted(tables[0])}").fetchall())
    uuid, guid = rows.get("uuid", ""), rows.get("guid", "")
    checks.expect(rows.get("schema_version") == "3", f"{path}: rocpd_metadata schema_version is 3 ({rows})")
    checks.expect(tables[0] == "rocpd_metadata" + uuid,
                  f"{path}: metadata uuid {uuid!r} is the table suffix of {tables[0]}")
    process_guids = {r[0] for r in conn.execute(f"SELECT guid FROM {quoted('rocpd_info_process' + uuid)}")}
    checks.expect(process_guids == {guid}, f"{path}: metadata guid {guid!r} = rocpd_info_process guids {process_guids}")
    return uuid, guid


def column_signature(conn, table):
    def default(d):
        return None if d is None else d.replace('"', "'")
    return [(r[1], r[2].upper(), r[3], default(r[4]), r[5]) for r in conn.execute(f"PRAGMA table_info({quoted(table)})")]


def foreign_keys(conn, table):
    return sorted((r[2], r[3], r[4]) for r in conn.execute(f"PRAGMA foreign_key_list({quoted(table)})"))


def check_tables(conn, path, uuid, guid, checks, report):
    amd = sqlite3.connect(":memory:")
    amd.executescript(load_amd_sql(standin.sql_schema.rocpd_tables, uuid, guid,
                                   standin.sql_option.sqlite3_pragma_foreign_keys))
    amd_tables = [r[0] for r in amd.execute("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'rocpd_%'")]
    ours = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    for table in amd_tables:
        if not checks.expect(table in ours, f"{path}: AMD's table {table} exists"):
            continue
        checks.expect(column_signature(amd, table) == column_signature(conn, table),
                      f"{path}: {table} has AMD's columns\n  AMD: {column_signature(amd, table)}\n  ours: "
                      f"{column_signature(conn, table)}")
        checks.expect(foreign_keys(amd, table) == foreign_keys(conn, table),
                      f"{path}: {table} has AMD's foreign keys")
    report["extra_tables"] = sorted(ours - set(amd_tables) - {"sqlite_sequence"})


def count(conn, table):
    return conn.execute(f"SELECT COUNT(*) FROM {quoted(table)}").fetchone()[0]


def apply_amd_views(path, work_dir, index, uuid, guid):
    """A copy of `path` whose views are AMD's (ours dropped), as a rocprofv3 file would carry them."""
    copy = os.path.join(work_dir, f"amd_views_{index}_{os.path.basename(path)}")
    shutil.copyfile(path, copy)
    conn = sqlite3.connect(copy)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='view'").fetchall():
        conn.execute(f"DROP VIEW {quoted(name)}")
    for kind in VIEW_FILES:
        conn.executescript(load_amd_sql(kind, uuid, guid))
    conn.commit()
    return conn


def check_views(conn, path, checks, report):
    views = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='view'")]
    rows = {}
    for view in views:
        try:
            rows[view] = len(conn.execute(f"SELECT * FROM {quoted(view)}").fetchall())
        except sqlite3.Error as e:
            checks.expect(False, f"{path}: AMD's view {view} reads: {e}")
    report["view_rows"] = rows
    for view, table in VIEW_KEEPS_TABLE.items():
        if view in rows:
            checks.expect(rows[view] == count(conn, table),
                          f"{path}: AMD's {view} view keeps every {table} row ({rows[view]} of {count(conn, table)})")
    if "counters_collection" in rows:
        pairs = conn.execute("SELECT COUNT(*) FROM (SELECT DISTINCT P.event_id, I.name FROM rocpd_pmc_event P "
                             "JOIN rocpd_info_pmc I ON I.id = P.pmc_id)").fetchone()[0]
        checks.expect(rows["counters_collection"] == pairs,
                      f"{path}: counters_collection has one row per (dispatch, counter) ({rows['counters_collection']} "
                      f"of {pairs})")


def view_contents(conn, view):
    cursor = conn.execute(f"SELECT * FROM {quoted(view)}")
    return [d[0] for d in cursor.description], sorted(map(repr, cursor.fetchall()))


def compare_our_views(ours, amd, path, checks, report):
    """The views our writer put in the file give AMD's columns and rows (a user querying `kernels`, `busy`, ...
    in our file, or AMD's rocpd.connect() on it, sees what AMD's view would show)."""
    our_views = {r[0] for r in ours.execute("SELECT name FROM sqlite_master WHERE type='view'")}
    compared = []
    for (view,) in amd.execute("SELECT name FROM sqlite_master WHERE type='view'").fetchall():
        if not checks.expect(view in our_views, f"{path}: our file has AMD's view {view}"):
            continue
        (amd_columns, amd_rows), (our_columns, our_rows) = view_contents(amd, view), view_contents(ours, view)
        checks.expect(our_columns == amd_columns,
                      f"{path}: our view {view} has AMD's columns\n  AMD: {amd_columns}\n  ours: {our_columns}")
        if our_columns == amd_columns:
            only_amd = [r for r in amd_rows if r not in set(our_rows)][:1]
            only_ours = [r for r in our_rows if r not in set(amd_rows)][:1]
            checks.expect(our_rows == amd_rows, f"{path}: our view {view} gives AMD's rows ({len(our_rows)} vs "
                                                f"{len(amd_rows)}; first only in AMD's: {only_amd}; first only in "
                                                f"ours: {only_ours})")
        compared.append(view)
    report["our_views_equal_amds"] = compared


def analyze_kernels(analyze_json):
    """name -> {count, total, min, max} from `rocm-perf analyze --json` (entries of one name are summed)."""
    with open(analyze_json, encoding="utf-8") as f:
        doc = json.load(f)
    profile = doc.get("profile", doc)
    out = {}
    for k in profile["kernels"]:
        d = k["durations"]
        e = out.setdefault(k["name"], {"count": 0, "total": 0, "min": None, "max": None})
        e["count"] += int(d["count"])
        e["total"] += int(round(d["total_ns"]))
        e["min"] = int(d["min_ns"]) if e["min"] is None else min(e["min"], int(d["min_ns"]))
        e["max"] = int(d["max_ns"]) if e["max"] is None else max(e["max"], int(d["max_ns"]))
    return out, int(profile["timing"]["dispatch_count"])


def merge_kernel_stats(into, rows):
    for name, calls, total, lo, hi in rows:
        e = into.setdefault(name, {"count": 0, "total": 0, "min": None, "max": None})
        e["count"] += int(calls)
        e["total"] += int(round(float(total)))
        e["min"] = int(lo) if e["min"] is None else min(e["min"], int(lo))
        e["max"] = int(hi) if e["max"] is None else max(e["max"], int(hi))


def compare_with_analyze(what, amd, ours, checks):
    checks.expect(sorted(amd) == sorted(ours), f"{what}: kernel names equal analyze's\n  AMD: {sorted(amd)}\n  "
                                               f"analyze: {sorted(ours)}")
    for name in sorted(set(amd) & set(ours)):
        for key in ("count", "total", "min", "max"):
            if key in amd[name] and amd[name][key] is not None:
                checks.expect(amd[name][key] == ours[name][key],
                              f"{what}: {name}: {key} {amd[name][key]} = analyze's {ours[name][key]}")


def run_sql_part(args, checks, report, ours):
    os.environ["ROCPD_SCHEMA_PATH"] = args.schema_dir
    kernels, top = {}, {}
    for index, path in enumerate(args.databases):
        entry = report["databases"].setdefault(path, {})
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        ids = metadata_of(conn, path, checks)
        if ids is None:
            continue
        check_tables(conn, path, *ids, checks, entry)
        amd = apply_amd_views(path, args.work_dir, index, *ids)
        compare_our_views(conn, amd, path, checks, entry)
        conn.close()
        check_views(amd, path, checks, entry)
        merge_kernel_stats(kernels, amd.execute(
            "SELECT name, COUNT(*), SUM(duration), MIN(duration), MAX(duration) FROM kernels GROUP BY name"))
        for name, calls, total_us in amd.execute("SELECT name, total_calls, total_duration FROM top_kernels"):
            e = top.setdefault(name, {"count": 0, "total": 0})
            e["count"] += calls
            e["total"] += int(round(total_us * 1000.0))
        entry["busy"] = [list(r) for r in amd.execute("SELECT agent_id, type, GpuTime, WallTime, Busy FROM busy")]
        entry["counters"] = {f"{k}|{c}": [n, v] for k, c, n, v in amd.execute(
            "SELECT kernel_name, counter_name, COUNT(*), SUM(value) FROM counters_collection GROUP BY 1, 2")}
        amd.close()
    ours_kernels, dispatches = ours
    compare_with_analyze("AMD's kernels view", kernels, ours_kernels, checks)
    compare_with_analyze("AMD's top_kernels view", top, ours_kernels, checks)
    checks.expect(sum(e["count"] for e in kernels.values()) == dispatches,
                  f"AMD's kernels view: {sum(e['count'] for e in kernels.values())} dispatches = analyze's {dispatches}")
    report["amd_sql"] = {"kernels": kernels, "top_kernels": top}


# ---- part 2: AMD's Python package --------------------------------------------------------------------------

def assemble_amd_package(source, work_dir):
    """AMD's rocpd package as CMake would install it, with the stand-in as its compiled module."""
    python_dir = os.path.join(source, "source", "lib", "python", "rocpd")
    schema_dir = os.path.join(source, "source", "share", "rocprofiler-sdk-rocpd")
    for needed in (os.path.join(python_dir, "summary.py"), os.path.join(schema_dir, "data_views.sql")):
        if not os.path.isfile(needed):
            return None, None, f"{needed} not found: --amd-source must be a rocprofiler-sdk source tree"
    package = os.path.join(work_dir, "amd_python", "rocpd")
    os.makedirs(package, exist_ok=True)
    for name in os.listdir(python_dir):
        if name.endswith(".py"):
            shutil.copyfile(os.path.join(python_dir, name), os.path.join(package, name))
    version = "0.0.0"
    version_file = os.path.join(source, "VERSION")
    if os.path.isfile(version_file):
        version = open(version_file, encoding="utf-8").read().strip()
    major, minor, patch = (version.split(".") + ["0", "0"])[:3]
    values = {"PROJECT_VERSION": version, "PROJECT_VERSION_MAJOR": major, "PROJECT_VERSION_MINOR": minor,
              "PROJECT_VERSION_PATCH": patch}
    init = os.path.join(package, "__init__.py")
    text = open(init, encoding="utf-8").read()
    while "@" in text:
        start = text.find("@")
        end = text.find("@", start + 1)
        if end < 0 or not text[start + 1:end].replace("_", "").isalnum():
            break
        text = text[:start] + values.get(text[start + 1:end], "unknown") + text[end + 1:]
    with open(init, "w", encoding="utf-8") as f:
        f.write(text)
    shutil.copyfile(os.path.join(HERE, "libpyrocpd_standin.py"), os.path.join(package, "libpyrocpd.py"))
    return os.path.dirname(package), schema_dir, None


def run_amd_rocpd(python_path, schema_dir, argv, work_dir, checks, what):
    env = dict(os.environ, PYTHONPATH=python_path, ROCPD_SCHEMA_PATH=schema_dir)
    r = subprocess.run([sys.executable, "-m", "rocpd"] + argv, cwd=work_dir, env=env, capture_output=True, text=True)
    log = os.path.join(work_dir, what.replace(" ", "_") + ".log")
    with open(log, "w", encoding="utf-8") as f:
        f.write(f"$ rocpd {' '.join(argv)}\n--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}")
    # AMD's export prints "Error: ..." and carries on, so the output alone tells whether it worked.
    checks.expect(r.returncode == 0 and "Error:" not in r.stdout and "Traceback" not in r.stderr,
                  f"AMD's rocpd {what} ran (exit {r.returncode}; log {log})")
    return r


def read_csv(path, checks, what):
    if not checks.expect(os.path.isfile(path), f"{what}: AMD's rocpd wrote {path}"):
        return []
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def window_expectation(paths, fraction):
    """Dispatches AMD's time window keeps, computed from the raw tables as its documentation states: the window
    spans [min + (max - min) * fraction, max] over regions, samples, dispatches, allocations and copies, and an
    event is kept when it starts and ends inside it (--inclusive true, the default)."""
    spans = []
    for path in paths:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        for table, lo, hi in (("rocpd_region", "start", "end"), ("rocpd_sample", "timestamp", "timestamp"),
                              ("rocpd_kernel_dispatch", "start", "end"), ("rocpd_memory_allocate", "start", "end"),
                              ("rocpd_memory_copy", "start", "end")):
            spans += conn.execute(f'SELECT MIN("{lo}"), MAX("{hi}") FROM {table}').fetchall()
        conn.close()
    mn = min(s[0] for s in spans if s[0] is not None)
    mx = max(s[1] for s in spans if s[1] is not None)
    begin, end = int(mn + (mx - mn) * fraction), int(mx)
    kept = 0
    for path in paths:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        kept += conn.execute('SELECT COUNT(*) FROM rocpd_kernel_dispatch WHERE start >= ? AND "end" <= ?',
                             (begin, end)).fetchone()[0]
        conn.close()
    return kept


def run_python_part(args, checks, report, ours):
    try:
        import pandas  # noqa: F401  (AMD's query/summary export through pandas)
    except ImportError:
        return "AMD's rocpd query/summary need pandas (Debian: python3-pandas), which is not installed"
    python_path, schema_dir, problem = assemble_amd_package(args.amd_source, args.work_dir)
    if problem:
        return problem
    for name in os.listdir(args.schema_dir):
        if name.endswith(".sql"):
            same = open(os.path.join(args.schema_dir, name), "rb").read() == \
                open(os.path.join(schema_dir, name), "rb").read()
            report.setdefault("vendored_sql_matches_source", {})[name] = same
    dbs = [os.path.abspath(p) for p in args.databases]
    ours_kernels, dispatches = ours
    out = os.path.join(args.work_dir, "amd_out")

    run_amd_rocpd(python_path, schema_dir, ["summary", "-i", *dbs, "-f", "csv", "-d", os.path.join(out, "summary"),
                                            "--domain-summary", "--summary-by-rank"], args.work_dir, checks, "summary")
    rows = read_csv(os.path.join(out, "summary", "kernels_summary.csv"), checks, "rocpd summary")
    amd = {}
    for r in rows:
        amd[r["Name"]] = {"count": int(r["Calls"]), "total": int(float(r["DURATION (nsec)"])),
                          "min": int(float(r["MIN (nsec)"])), "max": int(float(r["MAX (nsec)"]))}
    compare_with_analyze("AMD's rocpd summary (kernels_summary.csv)", amd, ours_kernels, checks)
    domains = {r["Name"]: r for r in read_csv(os.path.join(out, "summary", "domain_summary.csv"), checks,
                                              "rocpd summary --domain-summary")}
    checks.expect("KERNELS" in domains and int(domains["KERNELS"]["Calls"]) == dispatches,
                  f"AMD's domain summary: KERNELS calls = analyze's {dispatches} dispatches ({domains.get('KERNELS')})")
    by_rank = read_csv(os.path.join(out, "summary", "kernels_summary_by_rank.csv"), checks, "rocpd summary by rank")
    checks.expect(sum(int(r["Calls"]) for r in by_rank) == dispatches,
                  f"AMD's per-process kernel summary adds up to {dispatches} dispatches")
    report["amd_python"] = {"summary_kernels": amd, "summary_domains": sorted(domains),
                            "summary_processes": sorted({r["ProcessID"] for r in by_rank})}

    query = "SELECT name, COUNT(*) AS calls, SUM(duration) AS total FROM kernels GROUP BY name"
    run_amd_rocpd(python_path, schema_dir, ["query", "-i", *dbs, "--query", query, "--format", "csv",
                                            "-d", os.path.join(out, "query"), "-o", "kernels"],
                  args.work_dir, checks, "query")
    rows = read_csv(os.path.join(out, "query", "kernels.csv"), checks, "rocpd query")
    compare_with_analyze("AMD's rocpd query on its kernels view",
                         {r["name"]: {"count": int(r["calls"]), "total": int(float(r["total"]))} for r in rows},
                         ours_kernels, checks)

    expected = window_expectation(args.databases, 0.5)
    run_amd_rocpd(python_path, schema_dir, ["query", "-i", *dbs, "--start", "50%", "--end", "100%", "--query",
                                            "SELECT COUNT(*) AS dispatches FROM kernels", "--format", "csv",
                                            "-d", os.path.join(out, "window"), "-o", "window"],
                  args.work_dir, checks, "query with time window")
    rows = read_csv(os.path.join(out, "window", "window.csv"), checks, "rocpd query --start 50% --end 100%")
    got = int(rows[0]["dispatches"]) if rows else None
    checks.expect(got == expected, f"AMD's time window 50%-100% keeps {got} dispatches, expected {expected}")
    report["amd_python"]["window_50_100_dispatches"] = got
    report["amd_python"]["not_run"] = ["rocpd convert -f csv|pftrace|otf2: C++ in libpyrocpd (write_csv, "
                                       "write_perfetto, write_otf2), not packaged for Debian"]
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--analyze-json", required=True, help="`rocm-perf analyze --json --top 100000` of the DBs")
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("--schema-dir", default=os.path.join(HERE, "sql"))
    parser.add_argument("--amd-source", help="rocprofiler-sdk source tree: also run AMD's rocpd Python package")
    parser.add_argument("--report", help="write what AMD's views and tools reported, as JSON")
    parser.add_argument("databases", nargs="+")
    args = parser.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)

    checks = Checks()
    report = {"databases": {}}
    ours = analyze_kernels(args.analyze_json)
    run_sql_part(args, checks, report, ours)
    skipped = None
    if args.amd_source:
        skipped = run_python_part(args, checks, report, ours)
    report["checks_passed"] = checks.passed
    report["failures"] = checks.failures
    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1, sort_keys=True)
    print(f"{checks.passed} checks passed, {len(checks.failures)} failed")
    if checks.failures:
        return 1
    if skipped:
        print(f"SKIPPED AMD's Python: {skipped}")
        return SKIP
    return 0


if __name__ == "__main__":
    sys.exit(main())
