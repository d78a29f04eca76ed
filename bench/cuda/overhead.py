#!/usr/bin/env python3
"""Overhead of the CUDA collector, measured on the GPU machine: medians of alternating runs.

  overhead.py --collector LIB --bin DIR --out DIR [--rounds 7] [--torch-rounds 3] [--quick]

Workloads (each variant a separate process, variants rotated every round):
  launch_bound   N=100000 tiny kernels: untraced | traced (default API set) | traced, no API records |
                 traced, every runtime+driver API
  gpu_bound      500 x ~1 ms kernels: untraced | traced
  torch          100000 x add_ on 4 KB and 200 x 8192^2 bf16 mm: untraced | our collector |
                 torch.profiler(CUDA) | torch.profiler(CPU+CUDA)
The figure is the app's own timed loop (launch to final synchronise); process wall time (which includes
CUDA start-up and, traced, the spill->rocpd conversion at exit) is reported beside it."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "gpu"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import rocpd_query as q  # noqa: E402


def run(cmd, env_extra, trace_dir):
    env = dict(os.environ)
    env.update(env_extra)
    if trace_dir:
        shutil.rmtree(trace_dir, ignore_errors=True)
        os.makedirs(trace_dir)
        env["RPL_TRACE_DIR"] = trace_dir
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr[-2000:]}")
    _, results = q.parse_app_output(p.stdout)
    return {r["app"]: float(r["loop_s"]) for r in results}, wall, p.stdout, p.stderr


def bench(name, variants, rounds, out_dir, log):
    """variants: list of (label, cmd, env, traced). Returns {label: {app: [loop_s], 'wall': [s]}}."""
    data = {label: {"wall": []} for label, *_ in variants}
    for r in range(rounds):
        order = variants[r % len(variants):] + variants[:r % len(variants)]
        for label, cmd, env, traced in order:
            tdir = os.path.join(out_dir, "trace_tmp", name, label) if traced else None
            loops, wall, out, err = run(cmd, env, tdir)
            for app, s in loops.items():
                data[label].setdefault(app, []).append(s)
            data[label]["wall"].append(wall)
            log.write(f"{name} round {r} {label}: {loops} wall {wall:.3f}\n")
            if traced and r == 0 and os.listdir(tdir):  # keep one trace of each traced variant
                keep = os.path.join(out_dir, "traces_kept", name, label)
                shutil.rmtree(keep, ignore_errors=True)
                shutil.copytree(tdir, keep)
                log.write(err[-1500:] + "\n")
            log.flush()
    return data


def summarize(name, data, baseline, log):
    rows = []
    base = data[baseline]
    for label, series in data.items():
        for app, vals in series.items():
            if app == "wall":
                continue
            med = q.median(vals)
            bmed = q.median(base.get(app, [float("nan")]))
            rows.append({"workload": name, "variant": label, "metric": app, "runs": len(vals), "median_s": med,
                         "min_s": min(vals), "max_s": max(vals), "overhead_pct": 100.0 * (med / bmed - 1.0),
                         "wall_median_s": q.median(series["wall"]),
                         "wall_overhead_pct": 100.0 * (q.median(series["wall"]) / q.median(base["wall"]) - 1.0)})
    for r in rows:
        line = (f"{r['workload']:12s} {r['variant']:22s} {r['metric']:14s} n={r['runs']} median {r['median_s']:.6f}s "
                f"[{r['min_s']:.6f}, {r['max_s']:.6f}] overhead {r['overhead_pct']:+.2f}%  "
                f"wall {r['wall_median_s']:.3f}s ({r['wall_overhead_pct']:+.1f}%)")
        print(line)
        log.write(line + "\n")
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--collector", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--torch-script", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_loop.py"))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--torch-rounds", type=int, default=3)
    ap.add_argument("--skip-torch", action="store_true")
    ap.add_argument("--api-all", action="store_true", help="also time RPL_CUDA_API=all")
    ap.add_argument("--cupti-tuning", action="store_true",
                    help="also time CUPTI's device-buffer and per-thread-buffer settings")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    inject = {"CUDA_INJECTION64_PATH": os.path.abspath(args.collector)}
    lb = [os.path.join(args.bin, "launch_bound"), "100000"]
    gb = [os.path.join(args.bin, "gpu_bound")]
    rows = []
    with open(os.path.join(args.out, "overhead.log"), "w") as log:
        d = bench("launch_bound", [
            ("untraced", lb, {}, False),
            ("traced", lb, inject, True),
            ("traced_api_none", lb, dict(inject, RPL_CUDA_API="none"), True),
            # CUPTI's own cost: kernel records collected, then dropped unread
            ("cupti_only_discard", lb, dict(inject, RPL_CUDA_API="none", RPL_CUDA_DISCARD="1"), True),
            ("traced_api_none_cupti_clock", lb, dict(inject, RPL_CUDA_API="none", RPL_CUDA_CLOCK="cupti"), True),
        ] + ([("traced_api_all", lb, dict(inject, RPL_CUDA_API="all"), True)] if args.api_all else [])
          + ([("traced_devbuf64x4", lb, dict(inject, RPL_CUDA_DEVICE_BUFFER_MB="64", RPL_CUDA_DEVICE_BUFFERS="4"), True),
              ("discard_devbuf64x4", lb, dict(inject, RPL_CUDA_API="none", RPL_CUDA_DISCARD="1",
                                              RPL_CUDA_DEVICE_BUFFER_MB="64", RPL_CUDA_DEVICE_BUFFERS="4"), True),
              ("traced_pinned", lb, dict(inject, RPL_CUDA_PINNED="1"), True),
              ("traced_shared_buffer", lb, dict(inject, RPL_CUDA_PER_THREAD="0"), True)] if args.cupti_tuning else []),
            args.rounds, args.out, log)
        rows += summarize("launch_bound", d, "untraced", log)
        d = bench("gpu_bound", [("untraced", gb, {}, False), ("traced", gb, inject, True)],
                  max(3, args.rounds - 2), args.out, log)
        rows += summarize("gpu_bound", d, "untraced", log)
        if not args.skip_torch:
            py = [sys.executable, args.torch_script]
            d = bench("torch", [
                ("untraced", py + ["--mode", "none"], {}, False),
                ("rpl_collector", py + ["--mode", "none"], inject, True),
                ("torch_prof_cuda", py + ["--mode", "prof_cuda"], {}, False),
                ("torch_prof_cpu_cuda", py + ["--mode", "prof_cpu_cuda"], {}, False),
            ], args.torch_rounds, args.out, log)
            rows += summarize("torch", d, "untraced", log)
    with open(os.path.join(args.out, "overhead.json"), "w") as f:
        json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
