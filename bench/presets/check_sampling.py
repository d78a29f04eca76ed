#!/usr/bin/env python3
"""Checks of bench/presets/gpu_sampling.sh on rocm-perf's outputs; prints one PASS/FAIL line per check and a
JSON summary (--summary FILE). Exit 1 when any check fails.

  check_sampling.py monitor OUTDIR [--perfetto TRACE.json]   device monitoring of one profile run
  check_sampling.py pcsamp OUTDIR --source FILE.cu           PC sampling: the hottest line is the HOTSPOT line
  check_sampling.py overhead BASE_OUTDIR MON_OUTDIR          median runtime with vs without monitoring
"""
import argparse
import glob
import json
import os
import sqlite3
import sys

results = []


def check(name, ok, detail=""):
    results.append({"check": name, "ok": bool(ok), "detail": detail})
    print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")


def load(path):
    with open(path) as f:
        return json.load(f)


def monitor(args):
    prof = load(os.path.join(args.outdir, "profile.json"))
    runs = prof["runs"]
    check("monitor.source", runs.get("device_monitor", {}).get("source") == "nvml", json.dumps(runs.get("device_monitor")))
    for run in runs["per_run"]:
        devices = run.get("devices", [])
        check(f"monitor.run{run['run']}.devices", len(devices) >= 1, f"{len(devices)} devices")
        busy = [d for d in devices if d.get("peak_memory_used_bytes", 0) > 0]
        for d in devices:
            check(f"monitor.run{run['run']}.gpu{d['device']}.energy",
                  d.get("energy_j", 0) > 0 and d.get("samples", 0) >= 2,
                  f"energy {d.get('energy_j')} J ({d.get('energy_method')}), mean {d.get('mean_power_w')} W, "
                  f"peak {d.get('peak_power_w')} W, {d.get('samples')} samples over {d.get('monitored_s')} s, "
                  f"peak memory {d.get('peak_memory_used_bytes')} B, SM clock {d.get('mean_sm_clock_mhz')} MHz")
        check(f"monitor.run{run['run']}.stored", run.get("device_samples", 0) > 0, f"{run.get('device_samples')} rows")
        # The samples share the trace's clock: they bracket the kernels (first sample before the first kernel
        # starts, last after the last ends) and are not far from them.
        db = run["databases"][0]
        con = sqlite3.connect(db)
        s0, s1, n = con.execute("SELECT MIN(timestamp), MAX(timestamp), COUNT(*) FROM rocpd_sample").fetchone()
        k0, k1 = con.execute('SELECT MIN(start), MAX("end") FROM rocpd_kernel_dispatch').fetchone()
        con.close()
        ok = n and k0 is not None and s0 <= k0 and s1 >= k1 and (k0 - s0) < 120e9 and (s1 - k1) < 120e9
        check(f"monitor.run{run['run']}.clock", ok,
              f"samples [{s0}, {s1}] ns, kernels [{k0}, {k1}] ns: first sample {(k0 - s0) / 1e6 if ok else '?'} ms "
              f"before the first kernel")
    html = open(os.path.join(args.outdir, "report.html")).read()
    tracks = html.count('class="metric"')
    check("monitor.html_tracks", tracks > 0 and 'data-metric="power"' in html, f"{tracks} metric tracks")
    if args.perfetto:
        trace = load(args.perfetto)
        counters = [e for e in trace["traceEvents"] if e.get("ph") == "C"]
        names = sorted({e["name"] for e in counters})
        check("monitor.perfetto_counters", len(counters) > 0 and "power (W)" in names, f"{len(counters)} events: {names}")


def pcsamp(args):
    prof = load(os.path.join(args.outdir, "profile.json"))
    pc = prof.get("pc_sampling", {})
    check("pcsamp.present", "kernels" in pc, pc.get("error", f"{pc.get('total_samples')} samples, {pc.get('method')}"))
    if "kernels" not in pc:
        return
    hot_line = next(i for i, line in enumerate(open(args.source), 1) if line.rstrip().endswith("// HOTSPOT"))
    chase = [k for k in pc["kernels"] if "chase" in k["kernel"]]
    check("pcsamp.kernel", bool(chase), ", ".join(k["kernel"] for k in pc["kernels"][:5]))
    if not chase:
        return
    k = chase[0]
    lines = k["top_lines"]
    top = lines[0] if lines else {}
    check("pcsamp.hottest_line", top.get("line") == hot_line and os.path.basename(top.get("file", "")) == os.path.basename(args.source),
          f"expected {os.path.basename(args.source)}:{hot_line}; got {top.get('file')}:{top.get('line')} "
          f"({top.get('fraction')}, stalls {top.get('stalls', [])[:3]})")
    # The stalled instruction of a pointer chase is the load or the address arithmetic waiting on the previous
    # load's result: both on the HOTSPOT line. The SASS text must be there (nvdisasm found).
    ins = k["top_instructions"][0] if k["top_instructions"] else {}
    check("pcsamp.hottest_instruction", ins.get("line") == hot_line and ins.get("instruction", "") != "",
          f"+{ins.get('pc_offset')} {ins.get('instruction')!r} line {ins.get('line')} {ins.get('fraction')} "
          f"stalls {ins.get('stalls', [])[:3]} (disassembler {pc.get('disassembler')!r}); "
          f"top 5: {[(i.get('instruction'), i.get('line'), round(i['fraction'], 3)) for i in k['top_instructions'][:5]]}")
    reasons = [s["reason"] for s in k["stalls"][:3]]
    check("pcsamp.stall_reason", any("scoreboard" in r for r in reasons), f"top stall reasons {k['stalls'][:4]}")


def overhead(args):
    base = load(os.path.join(args.base, "profile.json"))["runs"]["runtime"]
    mon = load(os.path.join(args.monitored, "profile.json"))["runs"]["runtime"]
    b, m = base["median_ns"], mon["median_ns"]
    check(f"overhead.{args.label}", b > 0 and m > 0,
          f"median wall time without monitoring {b / 1e6:.1f} ms, with {m / 1e6:.1f} ms: {100 * (m - b) / b:+.2f}% "
          f"(runs {base['count']} / {mon['count']})")
    results[-1]["base_median_ns"], results[-1]["monitored_median_ns"] = b, m


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--summary")
    sub = p.add_subparsers(dest="what", required=True)
    m = sub.add_parser("monitor"); m.add_argument("outdir"); m.add_argument("--perfetto")
    c = sub.add_parser("pcsamp"); c.add_argument("outdir"); c.add_argument("--source", required=True)
    o = sub.add_parser("overhead"); o.add_argument("label"); o.add_argument("base"); o.add_argument("monitored")
    args = p.parse_args()
    try:
        {"monitor": monitor, "pcsamp": pcsamp, "overhead": overhead}[args.what](args)
    except Exception as e:  # a missing file or key is a failed check, not a crash of the suite
        check(f"{args.what}.error", False, repr(e))
    if args.summary:
        with open(args.summary, "a") as f:
            for r in results:
                f.write(json.dumps(r) + "\n")
    sys.exit(0 if all(r["ok"] for r in results) else 1)


if __name__ == "__main__":
    main()
