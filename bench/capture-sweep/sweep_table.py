#!/usr/bin/env python3
"""Tables of the capture sweep (issue 12): every distinct kernel of a training step captured
(`rocm-perf capture --all-kernels`) and replayed in a fresh process, and for a selection of kernels the replay's
warm- and cold-cache medians against the kernel's median duration inside the application.

  sweep_table.py inapp  --profile DIR --index SWEEP/index.json --out inapp.json
      in-app durations per captured kernel, from `rocm-perf profile`'s rocpd databases (profile.json lists them),
      matched by mangled name AND launch geometry (one kernel may run with several shapes)
  sweep_table.py select --index SWEEP/index.json --replays DIR --inapp inapp.json [--count 12]
      the captured kernels to time (one dir per line): those that replayed ("match"/"nondeterministic") and ran
      in the application, covering every kernel class, the longest in-app kernels of each class first
  sweep_table.py table  --index SWEEP/index.json --replays DIR [--inapp inapp.json --timing DIR]
                        --md OUT.md --json OUT.json
      the tables and figures; exits 0 (the figures say whether the targets were met)

Replay results are read from DIR/<kNNNN>.json (the `--json` document), DIR/<kNNNN>.rc (exit status) and
DIR/<kNNNN>.stderr; timings from TIMING/<kNNNN>.warm.json and TIMING/<kNNNN>.cold.json. Standard library only."""
import argparse
import json
import os
import re
import sqlite3
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "gpu"))
import rocpd_query  # noqa: E402  (scripts/gpu: sqlite3 only)

# Order matters: the first class whose pattern matches the demangled name wins.
CLASSES = [
    ("attention", r"flash|fmha|attention|attn|sdpa|mha_"),
    ("layer_norm", r"layer_?norm"),
    ("softmax", r"softmax"),
    # PyTorch's AdamW without foreach: addcmul_ (second moment) and addcdiv_ (the update) are its own kernels.
    ("optimizer", r"adam|multi_tensor_apply|foreach|optimizer|addcdiv|addcmul"),
    ("gemm", r"gemm|nvjet|cutlass|xmma|matmul|cublas|sm\d+_.*_tn|splitk"),
    ("reduction", r"reduce|reduction|cub::|deviceradix|devicescan|sum_kernel|norm_kernel|nll_loss|cross_entropy"),
    ("elementwise", r"elementwise|unrolled|vectorized|fill|copy|cat_|index|gather|scatter|embedding"),
]
OK_STATUSES = ("match", "nondeterministic")
WIDEN = 0.03


def kernel_class(demangled):
    name = demangled.lower()
    for cls, pattern in CLASSES:
        if re.search(pattern, name):
            return cls
    return "other"


def load_json(path):
    try:
        with open(path) as f:
            text = f.read()
        return json.loads(text) if text.strip() else None
    except (OSError, ValueError):
        return None


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def manifest_geometry(sweep_dir, kernel):
    """The captured launch's geometry and which launch of the kernel it was (dispatch_index, 1: the first)."""
    m = load_json(os.path.join(sweep_dir, kernel["dir"], "manifest.json")) if kernel.get("dir") else None
    if not m:
        return None
    g = m["geometry"]
    return {"grid": g["grid"], "block": g["block"], "dispatch_index": (m.get("kernel") or {}).get("dispatch_index")}


def replay_outcome(replays, kdir):
    """(status, reason, document) of one kernel's fresh-process replay."""
    if not os.path.exists(os.path.join(replays, kdir + ".rc")):
        return "not_replayed", "no replay was run (time budget?)", None
    rc_text = read_text(os.path.join(replays, kdir + ".rc")).strip()
    rc = int(rc_text) if re.fullmatch(r"-?\d+", rc_text) else -1
    doc = load_json(os.path.join(replays, kdir + ".json"))
    if doc and isinstance(doc.get("verification"), dict):
        status = doc["verification"].get("status", "unknown")
        reason = doc["verification"].get("reason", "")
        if status in OK_STATUSES and rc == 0:
            return status, "", doc
        return status, f"exit {rc}: {reason}".strip(), doc
    last = [l for l in read_text(os.path.join(replays, kdir + ".stderr")).splitlines() if l.strip()]
    return "failed", f"exit {rc}: " + (last[-1][:300] if last else "no document, nothing on stderr"), None


def index_kernels(index_path):
    index = load_json(index_path)
    if not index or "kernels" not in index:
        raise SystemExit(f"{index_path}: not a capture index")
    return index, os.path.dirname(os.path.abspath(index_path))


# ---------------------------------------------------------------- inapp
def step_instances(conn, dispatches):
    """{name: [[dispatch, ...] per train_step range]} in launch order, and {name: launches before the first
    step range ("warmup" or "train_step")}: a dispatch belongs to the step range its launch API call started in
    (correlation: the event's stack_id, as our collector and rocprofv3 write it)."""
    launch_start, ranges = {}, []
    try:
        regions = rocpd_query.regions(conn)
    except sqlite3.Error:  # a database without API regions: no steps to tell apart
        return {}, {}
    for r in regions:
        if r["corr"] and "aunch" in (r["name"] or ""):
            launch_start[r["corr"]] = r["start"]
        elif r["name"] in ("train_step", "warmup"):
            ranges.append(r)
    steps = sorted((r["start"], r["end"]) for r in ranges if r["name"] == "train_step")
    first = min((r["start"] for r in ranges), default=None)
    per_step, before = {}, {}
    for t, d in sorted(((launch_start[d["corr"]], d) for d in dispatches if d["corr"] in launch_start),
                       key=lambda td: td[0]):
        for name in {d["kernel_name"], d["display_name"]} - {None, ""}:
            if first is not None and t < first:
                before[name] = before.get(name, 0) + 1
            for i, (lo, hi) in enumerate(steps):
                if lo <= t <= hi:
                    per_step.setdefault(name, [[] for _ in steps])[i].append(d)
    return per_step, before


def same_launch(per_step, before, kernel, geo):
    """The captured launch's counterpart in each profiled step of one database: the capture took launch
    `dispatch_index` of the kernel in a run of the same program with one step; less the launches before the first
    step, that is its place within a step (checked against the captured geometry). Returns (place, dispatches)."""
    name = kernel["kernel"] if kernel["kernel"] in per_step else kernel["demangled"]
    if not geo["dispatch_index"] or name not in per_step:
        return None, []
    place = geo["dispatch_index"] - before.get(name, 0)
    work = tuple(g * b for g, b in zip(geo["grid"], geo["block"]))
    found = [step[place - 1] for step in per_step[name] if 1 <= place <= len(step)]
    return place, [d for d in found if (d["grid_size_x"], d["grid_size_y"], d["grid_size_z"]) == work and
                   (d["workgroup_size_x"], d["workgroup_size_y"], d["workgroup_size_z"]) == tuple(geo["block"])]


def cmd_inapp(a):
    index, sweep_dir = index_kernels(a.index)
    profile = load_json(os.path.join(a.profile, "profile.json"))
    dbs = [db for run in profile["runs"]["per_run"] for db in run["databases"]] if profile else []
    geometries = {k["dir"]: geo for k in index["kernels"] if (geo := manifest_geometry(sweep_dir, k))}
    durations = {}  # (mangled, grid work-items, block) -> [ns]
    by_name = {}
    same = {}  # dir -> (place in the step, [ns]): the captured launch's counterparts, database by database
    for db in dbs:
        conn = rocpd_query.connect(db)
        ds = rocpd_query.dispatches(conn)
        for d in ds:
            geometry = ((d["grid_size_x"], d["grid_size_y"], d["grid_size_z"]),
                        (d["workgroup_size_x"], d["workgroup_size_y"], d["workgroup_size_z"]))
            # By mangled name, and by demangled name where the collector stored only that.
            for name in {d["kernel_name"], d["display_name"]} - {None, ""}:
                durations.setdefault((name, *geometry), []).append(d["end"] - d["start"])
                by_name.setdefault(name, []).append(d["end"] - d["start"])
        per_step, before = step_instances(conn, ds)
        for k in index["kernels"]:
            if k["dir"] in geometries:
                place, found = same_launch(per_step, before, k, geometries[k["dir"]])
                if found:
                    same.setdefault(k["dir"], (place, []))[1].extend(d["end"] - d["start"] for d in found)
    out = {"databases": dbs, "kernels": {}}
    for k in index["kernels"]:
        geo = geometries.get(k["dir"])
        if not geo:
            continue
        work = tuple(g * b for g, b in zip(geo["grid"], geo["block"]))
        samples = durations.get((k["kernel"], work, tuple(geo["block"]))) or \
            durations.get((k["demangled"], work, tuple(geo["block"])))
        matched = "name+geometry"
        if not samples:
            samples, matched = by_name.get(k["kernel"]) or by_name.get(k["demangled"]), "name only"
        entry = {}
        # Its counterparts in each profiled train_step are the same tensors in the steady state; the
        # name+geometry median mixes in other tensors' launches of the same shape.
        if k["dir"] in same:
            place, ns = same[k["dir"]]
            entry["same_instance"] = {"median_ns": statistics.median(ns), "samples": len(ns), "place_in_step": place}
        if samples:
            entry.update({"median_ns": statistics.median(samples), "samples": len(samples), "matched_by": matched})
            out["kernels"][k["dir"]] = entry
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
    print(f"in-app durations for {len(out['kernels'])} of {len(index['kernels'])} kernels from {len(dbs)} database(s); "
          f"{sum('same_instance' in e for e in out['kernels'].values())} with the same launch in each step")


# ---------------------------------------------------------------- select
def cmd_select(a):
    index, _ = index_kernels(a.index)
    inapp = (load_json(a.inapp) or {}).get("kernels", {})
    per_class = {}
    for k in index["kernels"]:
        if k["status"] != "captured" or k["dir"] not in inapp:
            continue
        status, _, _ = replay_outcome(a.replays, k["dir"])
        if status not in OK_STATUSES:
            continue
        per_class.setdefault(kernel_class(k["demangled"]), []).append((inapp[k["dir"]]["median_ns"], k["dir"]))
    for lst in per_class.values():
        lst.sort(reverse=True)
    chosen = []
    # Round robin over the classes (named classes first), longest in-app kernel of each first.
    order = [c for c, _ in CLASSES if c in per_class] + [c for c in per_class if c not in dict(CLASSES)]
    while len(chosen) < a.count and any(per_class[c] for c in order):
        for c in order:
            if per_class[c] and len(chosen) < a.count:
                chosen.append(per_class[c].pop(0)[1])
    print("\n".join(chosen))


# ---------------------------------------------------------------- table
def timing(timing_dir, kdir, mode):
    doc = load_json(os.path.join(timing_dir, f"{kdir}.{mode}.json")) if timing_dir else None
    if not doc or "gpu_time_ns" not in doc:
        return None, doc
    return doc["gpu_time_ns"]["median"], doc


def short(name, n=90):
    name = name.replace("|", "\\|")
    return name if len(name) <= n else name[: n - 1] + "…"


def cmd_table(a):
    index, _ = index_kernels(a.index)
    inapp = (load_json(a.inapp) or {}).get("kernels", {}) if a.inapp else {}
    rows, counts = [], {}
    for k in index["kernels"]:
        if k["status"] == "captured":
            status, reason, doc = replay_outcome(a.replays, k["dir"])
        else:
            status, reason, doc = "capture " + k["status"], k["reason"], None
        counts[status] = counts.get(status, 0) + 1
        rows.append({"order": k["order"], "dir": k["dir"], "kernel": k["demangled"], "class": kernel_class(k["demangled"]),
                     "capture": k["status"], "replay": status, "reason": reason,
                     "ok": status in OK_STATUSES})
    distinct = len(rows)
    ok = sum(r["ok"] for r in rows)
    captured = sum(r["capture"] == "captured" for r in rows)
    figures = {"distinct_kernels": distinct, "captured": captured, "replayed_ok": ok,
               "replayed_match": counts.get("match", 0), "replayed_nondeterministic": counts.get("nondeterministic", 0),
               "ok_fraction": ok / distinct if distinct else 0.0, "target_fraction": 0.98,
               "target_met": bool(distinct) and ok / distinct >= 0.98, "by_status": counts,
               "application": index.get("application", "")}

    # Issue 12's defect: PyTorch's vectorized_layer_norm_kernel (anonymous namespace) could not be captured.
    figures["vectorized_layer_norm_kernels"] = [
        {"kernel": r["kernel"][:120], "capture": r["capture"], "replay": r["replay"]}
        for r in rows if "vectorized_layer_norm_kernel" in r["kernel"]]
    timings = []
    for r in rows:
        warm, wdoc = timing(a.timing, r["dir"], "warm") if r["dir"] else (None, None)
        cold, cdoc = timing(a.timing, r["dir"], "cold") if r["dir"] else (None, None)
        if warm is None and cold is None:
            continue
        # The in-app time of the launch the capture took, in each profiled step (same tensors); the median of
        # every launch of the kernel with this shape beside it, and where the steps could not be told apart.
        entry = inapp.get(r["dir"], {})
        same = entry.get("same_instance") or {}
        app = same.get("median_ns", entry.get("median_ns"))
        t = {"dir": r["dir"], "kernel": r["kernel"], "class": r["class"], "in_app_ns": app, "warm_ns": warm,
             "cold_ns": cold, "warm_cache_reported": (wdoc or {}).get("cache"),
             "cold_cache_reported": (cdoc or {}).get("cache"),
             "in_app_samples": same.get("samples", entry.get("samples")),
             "in_app_matched": "same launch in each step" if same else entry.get("matched_by"),
             "in_app_shape_ns": entry.get("median_ns"), "in_app_shape_samples": entry.get("samples"),
             "restores": restores_text((wdoc or {}).get("restores")),
             "variants": {v: timing(a.timing, r["dir"], v)[0] for v in EXTRA_VARIANTS
                          if r["dir"] and timing(a.timing, r["dir"], v)[0] is not None}}
        if app is not None and warm is not None and cold is not None:
            lo, hi = min(warm, cold) * (1 - WIDEN), max(warm, cold) * (1 + WIDEN)
            t["within"] = lo <= app <= hi
            t["closest"] = "warm" if abs(app - warm) <= abs(app - cold) else "cold"
        timings.append(t)
    for t in timings:  # the same band from other pairs of warm and cold variants, when the sweep ran them
        app = t["in_app_ns"]
        for suffix in PAIRED_SUFFIXES:
            w, c = t["variants"].get("warm-" + suffix), t["variants"].get("cold-" + suffix)
            if suffix in WARM_ONLY:  # a warm style: its band's cold end is the main cold
                c = t["cold_ns"]
            if app is not None and w is not None and c is not None:
                t["within_" + suffix] = min(w, c) * (1 - WIDEN) <= app <= max(w, c) * (1 + WIDEN)
    for t in timings:  # the old comparison: every in-app launch of this kernel and shape, whichever tensors
        w, c, app = t["warm_ns"], t["cold_ns"], t["in_app_shape_ns"]
        if app is not None and w is not None and c is not None:
            t["within_shape"] = min(w, c) * (1 - WIDEN) <= app <= max(w, c) * (1 + WIDEN)
    figures["timed_kernels"] = len(timings)
    figures["timed_within_band"] = sum(1 for t in timings if t.get("within"))
    figures["timed_same_instance"] = sum(1 for t in timings if t["in_app_matched"] == "same launch in each step")
    figures["timed_within_band_shape"] = sum(1 for t in timings if t.get("within_shape"))
    figures["timed_within_classes"] = sorted({t["class"] for t in timings if t.get("within")})
    for suffix in PAIRED_SUFFIXES:
        if any("within_" + suffix in t for t in timings):
            figures["timed_within_band_" + suffix] = sum(1 for t in timings if t.get("within_" + suffix))
    figures["timed_classes"] = sorted({t["class"] for t in timings})
    closest = {}
    for t in timings:
        if "closest" in t:
            closest.setdefault(t["class"], {"warm": 0, "cold": 0})[t["closest"]] += 1
    figures["closest_mode_by_class"] = closest

    md = ["## Capture and replay of every distinct kernel", "",
          f"{distinct} distinct kernels; {captured} captured; {ok} replayed in a fresh process with verification "
          f"\"match\" or \"nondeterministic\" ({100 * figures['ok_fraction']:.1f}%, target 98%: "
          f"{'met' if figures['target_met'] else 'NOT met'}).", "",
          "| status | kernels |", "|---|---|"]
    md += [f"| {s} | {n} |" for s, n in sorted(counts.items(), key=lambda kv: -kv[1])]
    md += ["", "| # | class | kernel | capture | replay | reason |", "|---|---|---|---|---|---|"]
    md += [f"| {r['order']} | {r['class']} | `{short(r['kernel'])}` | {r['capture']} | {r['replay']} | "
           f"{short(r['reason'], 160)} |" for r in rows]
    if timings:
        md += ["", "## Replay time against in-app time", "",
               f"In-app median (our collector; of the captured launch's counterpart in each profiled step for "
               f"{figures['timed_same_instance']} of {len(timings)}, else of every launch of the kernel with its shape) "
               f"against the replay's warm- and cold-cache medians, the band "
               f"[min, max] widened by {int(WIDEN * 100)}%: {figures['timed_within_band']} of {len(timings)} within"
               f" ({figures['timed_within_band_shape']} of {len(timings)} against every launch of the shape)"
               + "".join(f" ({figures['timed_within_band_' + sfx]} of {len(timings)} {PAIRED_WORDS[sfx]})"
                         for sfx in PAIRED_SUFFIXES if "timed_within_band_" + sfx in figures) + ".", ""]
        shown = [v for v in EXTRA_VARIANTS if any(v in t["variants"] for t in timings)]
        md += ["| class | kernel | in-app µs | warm µs | cold µs | within | closest | restores (warm) | "
               "in-app, every launch of the shape µs | " + "".join(f"{VARIANT_LABELS[v]} µs | " for v in shown),
               "|---|---|---|---|---|---|---|---|---|" + "---|" * len(shown)]

        def us(v):
            return f"{v / 1e3:.2f}" if v is not None else "—"
        md += [f"| {t['class']} | `{short(t['kernel'], 70)}` | {us(t['in_app_ns'])} | {us(t['warm_ns'])} | "
               f"{us(t['cold_ns'])} | {'yes' if t.get('within') else ('no' if 'within' in t else '—')} | "
               f"{t.get('closest', '—')} | {t['restores']} | {us(t['in_app_shape_ns'])} | "
               + "".join(f"{us(t['variants'].get(v))} | " for v in shown) for t in timings]
    with open(a.md, "w") as f:
        f.write("\n".join(md) + "\n")
    with open(a.json, "w") as f:
        json.dump({"figures": figures, "kernels": rows, "timings": timings}, f, indent=1)
    print(json.dumps(figures))


# Timing variants beside warm and cold (gpu_sweep.sh TIMING_VARIANTS): reported, not part of the band.
# warm-iotlb: recorded in run 5 of 2026-11-26 (RPL_REPLAY_WARM_TLB, removed since); kept to rebuild that table.
EXTRA_VARIANTS = ("warm-nowarmup", "cold-nowarmup", "warm-settle", "cold-settle", "warm-io", "warm-iotlb", "warm-b2b", "cold-data")
VARIANT_LABELS = {"warm-nowarmup": "warm, no warm-up", "cold-nowarmup": "cold, no warm-up",
                  "warm-settle": "warm, settled", "cold-settle": "cold, settled", "warm-io": "warm, outputs read in too",
                  "warm-iotlb": "warm, outputs too, translations warmed",
                  "warm-b2b": "warm back to back", "cold-data": "cold, L2 only"}
# Pairs warm-SUFFIX / cold-SUFFIX that make a band of their own (reported beside the main one).
PAIRED_SUFFIXES = ("nowarmup", "settle", "io", "iotlb")
WARM_ONLY = ("io", "iotlb")
PAIRED_WORDS = {"nowarmup": "without the warm-up", "settle": "with the GPU idle before each timed launch",
                "io": "with warm reading in what the kernel writes too",
                "iotlb": "with that and every SM's address translations warmed"}


def restores_text(r):
    """The replay document's restore policy in a few words (older documents have none)."""
    if not r:
        return "—"
    if not r.get("between_launches", True):
        return "none (back to back)"
    return f"{r.get('regions', 0)} region(s), {r.get('filled_regions', 0)} by fill"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("inapp")
    p.add_argument("--profile", required=True)
    p.add_argument("--index", required=True)
    p.add_argument("--out", required=True)
    p = sub.add_parser("select")
    p.add_argument("--index", required=True)
    p.add_argument("--replays", required=True)
    p.add_argument("--inapp", required=True)
    p.add_argument("--count", type=int, default=12)
    p = sub.add_parser("table")
    p.add_argument("--index", required=True)
    p.add_argument("--replays", required=True)
    p.add_argument("--inapp")
    p.add_argument("--timing")
    p.add_argument("--md", required=True)
    p.add_argument("--json", required=True)
    a = ap.parse_args()
    {"inapp": cmd_inapp, "select": cmd_select, "table": cmd_table}[a.cmd](a)


if __name__ == "__main__":
    main()
