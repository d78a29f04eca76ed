#!/usr/bin/env python3
"""Loads a `rocm-perf export perfetto --format pftrace` file into Perfetto's own trace processor (tp_load.cjs:
trace_processor.wasm of the pinned Perfetto UI build, in node) and checks what it imported against the rocpd
database the trace was exported from.

  check_trace_processor.py DB TRACE UI_PACKAGE_DIR [--node NODE] [--expect-flows N]

Checks: the importer's stats table has no error or data-loss entry; per kernel name, the number of slices, the
sum of their durations and the first start / last end equal the database's (every dispatch, every duration);
copies likewise; a few dispatches, found by their dispatch_id argument, keep start, duration, name and stream;
the profiled process has its pid and name; one track per stream; no slice is nested or left open; every flow
joins slices on two different tracks; the critical-path track holds slices. The export covers the default
analysis window (first kernel start to last kernel end), so copies outside it are not expected.

Prints one line per check and a summary with the load time and the loader's peak RSS; exit 0 when every check
passes, 1 when one fails or the trace processor rejects the trace, 77 when node is missing.
"""
import argparse
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LANE = "t.name not like 'critical path%' and t.name != 'Critical path'"
ON_TRACK = "from slice s join track t on s.track_id = t.id"


def expected_from_db(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    q = lambda sql, *args: con.execute(sql, args).fetchall()
    first, last = q("select min(start), max(end) from kernels")[0]
    kernels = {name: (n, total, lo, hi) for name, n, total, lo, hi in
               q("select name, count(*), sum(end - start), min(start), max(end) from kernels group by name")}
    copies_all = q("select count(*) from memory_copies")[0][0]
    copies = q("select count(*), coalesce(sum(end - start), 0) from memory_copies where end >= ? and start <= ?",
               first, last)[0]
    ids = [r[0] for r in q("select dispatch_id from kernels order by dispatch_id")]
    picks = sorted({ids[0], ids[len(ids) // 2], ids[-1]})
    spot = {r[0]: r[1:] for r in q(
        f"select dispatch_id, start, end - start, name, stream from kernels where dispatch_id in "
        f"({','.join('?' * len(picks))})", *picks)}
    processes = q("select pid, command from processes")
    streams = q("select count(*) from (select distinct pid, stream_id from kernels union "
                "select distinct pid, stream_id from memory_copies where end >= ? and start <= ?)", first, last)[0][0]
    return {"kernels": kernels, "dispatches": len(ids), "copies_all": copies_all, "copies": copies,
            "spot": spot, "processes": processes, "streams": streams}


def queries(spot_ids):
    return {
        "stats": "select name, idx, severity, source, value from stats "
                 "where value > 0 and severity in ('error', 'data_loss')",
        "kernels": f"select s.name, count(*), sum(s.dur), min(s.ts), max(s.ts + s.dur) {ON_TRACK} "
                   f"where s.category = 'dispatch' and {LANE} group by s.name",
        "copies": f"select count(*), coalesce(sum(s.dur), 0) {ON_TRACK} where s.category = 'copy' and {LANE}",
        "spot": f"select a.int_value, s.ts, s.dur, s.name, t.name {ON_TRACK} "
                f"join args a on a.arg_set_id = s.arg_set_id where a.key = 'debug.dispatch_id' "
                f"and a.int_value in ({','.join(str(i) for i in spot_ids)}) and {LANE}",
        "processes": "select pid, name from process where pid is not null and pid != 0",
        "lanes": f"select count(distinct s.track_id) {ON_TRACK} where {LANE}",
        "shape": "select count(*), sum(depth > 0), sum(dur < 0) from slice",
        "flows": "select count(*), coalesce(sum(o.track_id != i.track_id), 0) from flow f "
                 "join slice o on f.slice_out = o.id join slice i on f.slice_in = i.id",
        "critical": f"select count(*) {ON_TRACK} where t.name like 'critical path%'",
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("db")
    ap.add_argument("trace")
    ap.add_argument("ui_package")
    ap.add_argument("--node", default=shutil.which("node") or "")
    ap.add_argument("--expect-flows", type=int, help="the number of flows the trace holds (else: at least one)")
    a = ap.parse_args()
    if not a.node:
        print("check_trace_processor: node is not installed (apt-get install nodejs)", file=sys.stderr)
        return 77

    exp = expected_from_db(a.db)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(queries(sorted(exp["spot"])), f)
        queries_file = f.name
    started = time.monotonic()
    run = subprocess.run([a.node, os.path.join(HERE, "tp_load.cjs"), a.ui_package, a.trace, queries_file],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - started
    os.unlink(queries_file)
    peak_rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if run.returncode != 0:
        print(f"trace processor failed (exit {run.returncode}):\n{run.stderr}", file=sys.stderr)
        return 1
    out = json.loads(run.stdout)
    r = {name: res["rows"] for name, res in out["queries"].items()}

    failures = []

    def check(what, expected, got):
        ok = expected == got
        print(f"{'ok  ' if ok else 'FAIL'} {what}: expected {expected}, trace processor {got}")
        if not ok:
            failures.append(what)

    check("import errors and data losses in the stats table", [], r["stats"])
    got_kernels = {name: (n, total, lo, hi) for name, n, total, lo, hi in r["kernels"]}
    check("kernel names", sorted(exp["kernels"]), sorted(got_kernels))
    for name, want in sorted(exp["kernels"].items()):
        check(f"'{name}': slices, sum of durations, first start, last end", list(want),
              list(got_kernels.get(name, ())))
    check("dispatch slices", exp["dispatches"], sum(v[0] for v in got_kernels.values()))
    print(f"     copies in the database: {exp['copies_all']}, inside the analysis window: {exp['copies'][0]}")
    check("copy slices and the sum of their durations", list(exp["copies"]), r["copies"][0])
    got_spot = {row[0]: row[1:] for row in r["spot"]}
    for dispatch_id, (start, dur, name, stream) in sorted(exp["spot"].items()):
        got = got_spot.get(dispatch_id)
        check(f"dispatch {dispatch_id}: start, duration, name", [start, dur, name], list(got[:3]) if got else None)
        check(f"dispatch {dispatch_id}: its track names its stream '{stream}'", True,
              bool(got) and f"({stream})" in got[3])
    for pid, command in exp["processes"]:
        names = [name for p, name in r["processes"] if p == pid]
        check(f"process {pid} present and named after '{command}'", True,
              len(names) == 1 and names[0] is not None and command in names[0])
    check("stream tracks", exp["streams"], r["lanes"][0][0])
    slices, nested, open_ = r["shape"][0]
    check("slices nested or left open", [0, 0], [nested, open_])
    flows, across = r["flows"][0]
    if a.expect_flows is None:
        check("flows imported (dependency arrows)", True, flows > 0)
    else:
        check("flows imported (dependency arrows)", a.expect_flows, flows)
    check("flows joining slices on two different tracks", flows, across)
    check("critical-path slices imported", True, r["critical"][0][0] > 0)
    print(f"slices: {slices}, flows: {flows}, critical-path slices: {r['critical'][0][0]}")
    print(f"trace: {out['trace_bytes']} bytes; trace processor load (parse + finalize): {out['load_seconds']:.2f} s; "
          f"loader wall time with queries: {wall:.2f} s; loader peak RSS: {peak_rss_kib} KiB")
    if failures:
        print(f"trace processor checks: {len(failures)} FAILED")
        return 1
    print("trace processor checks: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
