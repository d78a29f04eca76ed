#!/usr/bin/env python3
"""Checks a rocpd database written by the CUDA collector against what the app says it launched.

  check_rocpd.py DB [--app-output FILE] [--multistream JSON] [--min-kernels N] [--summary FILE]

Checks: kernel counts per name equal the app's RPL_EXPECT lines; the `kernels` data view shows every
dispatch (its INNER joins need every thread/queue/stream/agent row); timestamps are sane (end >= start, no
kernel starts before the API call that launched it); a GPU agent named sm_XY with its SM count. With
--multistream, the cross-stream edges rebuilt from cudaEventRecord / cudaStreamWaitEvent regions (by their
stream and event args) must be exactly the expected ones, per iteration. Prints PASS/FAIL lines; exit 1 on
any failure."""
import argparse
import collections
import json
import re
import sys

import rocpd_query as q


class Checker:
    def __init__(self):
        self.failures = 0
        self.summary = {}

    def check(self, ok, what, detail=""):
        print(f"{'PASS' if ok else 'FAIL'}: {what}" + (f" ({detail})" if detail else ""))
        if not ok:
            self.failures += 1
        return ok


def rebuild_edges(ds, rs):
    """Cross-stream edges: wait(stream Sw, event E) pairs with the latest record of E before it (by
    correlation id); the producer is the last kernel on the record's stream launched before the record,
    the consumer the first kernel on Sw launched after the wait."""
    records = [r for r in rs if r["name"] in ("cudaEventRecord", "cudaEventRecordWithFlags", "cuEventRecord")
               and "event" in r["args"]]
    waits = [r for r in rs if r["name"] in ("cudaStreamWaitEvent", "cuStreamWaitEvent") and "event" in r["args"]]
    by_stream = collections.defaultdict(list)
    for d in ds:
        by_stream[d["stream_id"]].append(d)
    for v in by_stream.values():
        v.sort(key=lambda d: d["corr"] or 0)

    def stream_of(region):
        value, ext = region["args"].get("stream", (None, {}))
        return ext.get("stream_id", int(value) if value is not None else None)

    edges = []
    for w in waits:
        event = w["args"]["event"][0]
        candidates = [r for r in records if r["args"]["event"][0] == event and (r["corr"] or 0) < (w["corr"] or 0)]
        if not candidates:
            continue
        rec = max(candidates, key=lambda r: r["corr"] or 0)
        producers = [d for d in by_stream[stream_of(rec)] if (d["corr"] or 0) < (rec["corr"] or 0)]
        consumers = [d for d in by_stream[stream_of(w)] if (d["corr"] or 0) > (w["corr"] or 0)]
        if producers and consumers:
            edges.append((producers[-1], consumers[0], event))
    return edges


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--app-output")
    ap.add_argument("--multistream")
    ap.add_argument("--min-kernels", type=int, default=0)
    ap.add_argument("--gpus", type=int, default=0, help="expect this many GPU agents, each with an equal share")
    ap.add_argument("--summary")
    args = ap.parse_args()
    c = Checker()
    conn = q.connect(args.db)
    ds = q.dispatches(conn)
    rs = q.regions(conn)
    cs = q.copies(conn)
    ag = q.agents(conn)
    counts = collections.Counter(d["name"] for d in ds)
    region_counts = collections.Counter(r["name"] for r in rs)
    c.summary.update(db=args.db, dispatches=len(ds), regions=len(rs), copies=len(cs),
                     kernels_by_name=dict(counts), regions_by_name=dict(region_counts))
    print(f"db {args.db}: {len(ds)} dispatches, {len(rs)} regions, {len(cs)} copies, {len(ag)} agents")
    print("  regions:", ", ".join(f"{k}={v}" for k, v in sorted(region_counts.items())))

    if args.app_output:
        expect, _ = q.parse_app_output(open(args.app_output).read())
        c.check(bool(expect), "app declared its kernels (RPL_EXPECT)")
        for name, n in sorted(expect.items()):
            c.check(counts.get(name, 0) == n, f"kernel {name}: {counts.get(name, 0)} dispatches", f"expected {n}")
    if args.min_kernels:
        c.check(len(ds) >= args.min_kernels, f"at least {args.min_kernels} dispatches", f"got {len(ds)}")

    view = q.count_view(conn, "kernels")
    c.check(view == len(ds), "the kernels view shows every dispatch", f"view {view}, table {len(ds)}")
    if cs:
        mview = q.count_view(conn, "memory_copies")
        c.check(mview == len(cs), "the memory_copies view shows every copy", f"view {mview}, table {len(cs)}")
    c.check(all(d["end"] >= d["start"] > 0 for d in ds), "every dispatch has end >= start > 0")
    api_start = {r["corr"]: r["start"] for r in rs if r["corr"]}
    early = [d for d in ds if d["corr"] in api_start and d["start"] < api_start[d["corr"]]]
    launched = sum(1 for d in ds if d["corr"] in api_start)
    c.summary["dispatches_with_launch_region"] = launched
    c.check(not early, "no kernel starts before its launch call (one clock for host and GPU)",
            f"{len(early)} of {launched} early" + (f", worst by {max(api_start[d['corr']] - d['start'] for d in early)} ns" if early else ""))
    gpus = [a for a in ag if a["type"] == "GPU"]
    c.check(bool(gpus) and all(re.fullmatch(r"sm_\d+", a["name"] or "") for a in gpus),
            "GPU agents named sm_XY", ", ".join(f"{a['id']}:{a['name']}:{a['product_name']}" for a in gpus))
    c.check(all((a["extdata"].get("cu_count") or 0) > 0 and a["extdata"].get("wave_front_size") == 32 for a in gpus),
            "GPU agents carry cu_count (SMs) and wave_front_size 32",
            ", ".join(f"cu_count={a['extdata'].get('cu_count')}" for a in gpus))
    if args.gpus:
        per_agent = collections.Counter(d["agent_id"] for d in ds)
        c.summary["dispatches_per_agent"] = dict(per_agent)
        c.check(len(gpus) == args.gpus, f"{args.gpus} GPU agents", f"got {len(gpus)}")
        c.check(len(per_agent) == args.gpus and len(set(per_agent.values())) == 1,
                "every GPU agent has its equal share of the dispatches", f"{dict(per_agent)}")
    if ds:
        d0 = ds[0]
        c.summary["first_dispatch"] = {k: d0[k] for k in ("name", "grid_size_x", "workgroup_size_x",
                                                           "group_segment_size", "arch_vgpr_count", "stream_id")}

    if args.multistream:
        spec = json.load(open(args.multistream))
        expect_iters = None
        if args.app_output:
            expect, _ = q.parse_app_output(open(args.app_output).read())
            expect_iters = expect.get("stage_a1")
        edges = rebuild_edges(ds, rs)
        got = collections.Counter((p["name"], s["name"]) for p, s, _ in edges)
        want = collections.Counter()
        for e in spec["cross_stream_edges_per_iteration"]:
            want[(e["from"], e["to"])] += expect_iters or spec["default_args"]["iters"]
        c.summary["cross_stream_edges"] = {f"{a}->{b}": n for (a, b), n in got.items()}
        c.check(got == want, "cross-stream edges rebuilt from event record/wait args",
                f"got {dict(got)}, expected {dict(want)}")
        # Per iteration: the path a1 -> b2 -> c2 should span about the expected time (the stages spin).
        by_name = collections.defaultdict(list)
        for d in ds:
            by_name[d["name"]].append(d)
        spans = [(c2["end"] - a1["start"]) / 1000.0 for a1, c2 in zip(by_name["stage_a1"], by_name["stage_c2"])]
        durs = {n: q.median([(d["end"] - d["start"]) / 1000.0 for d in v]) for n, v in by_name.items()}
        c.summary["multistream_path_span_us"] = spans
        c.summary["multistream_stage_median_us"] = durs
        expected_path = spec["critical_path_us_per_iteration"]
        # The first iteration also pays CUDA's lazy module loading at each kernel's first launch, which
        # delays later launches; the path is checked on the iterations after it.
        later = spans[1:] if len(spans) > 1 else spans
        c.check(all(expected_path * 0.98 <= s <= expected_path * 1.10 for s in later),
                "a1.start -> c2.end spans the expected critical path (iterations after the first)",
                f"{[round(s) for s in spans]} us vs {expected_path}")
        for n, us in spec["stage_duration_us"].items():
            c.check(abs(durs.get(n, 0) - us) <= 0.05 * us, f"{n} median duration {durs.get(n, 0):.1f} us", f"expected {us}")

    if args.summary:
        with open(args.summary, "w") as f:
            json.dump(c.summary, f, indent=1, default=str)
    print(f"{'OK' if c.failures == 0 else 'FAILED'}: {c.failures} failure(s)")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
