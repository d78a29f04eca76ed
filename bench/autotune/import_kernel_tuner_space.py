#!/usr/bin/env python3
"""Turns a brute-forced Kernel Tuner cache (the AutoTuningAssociation benchmark hub's `cachefiles/<kernel>/<GPU>.json.gz`,
MIT licence) into a measured space in this benchmark's format (bench/autotune/spaces/*.json: `space` in rocm-perf's
--space format, `results` one row per configuration), gzip-compressed.

Parameters with a single value are dropped (their value is substituted in the restrictions). The restrictions are
the hub's T1 "Conditions" for the kernel, written in rocm-perf's restriction language (given below per kernel);
the script checks that they admit exactly the configurations the cache holds, so the tuner enumerates the same
space that was measured. Configurations the cache records as failed (RuntimeFailedConfig, CompilationFailedConfig)
are invalid, with that reason.

Usage: import_kernel_tuner_space.py KERNEL CACHE.json.gz OUT.json.gz
       (KERNEL: convolution_milo | dedispersion_milo | gemm_clblast | pnpoly)
"""
import gzip
import itertools
import json
import os
import re
import sys

# The hub's kernels/<kernel>.json Conditions, in rocm-perf's restriction syntax (single-valued parameters substituted:
# filter_width = filter_height = 15).
RESTRICTIONS = {
    "convolution_milo": [
        "use_padding == 0 || block_size_x % 32 != 0",
        "block_size_x*block_size_y <= 1024",
        "use_padding == 0 || use_shmem != 0",
        "use_shmem == 0 || (block_size_x*tile_size_x + 14)*(block_size_y*tile_size_y + 14) < 12*1024",
    ],
    # CLBlast's Xgemm as Kernel Tuner's examples restrict it (the hub's currently_unused/cachefiles/KernelTuner
    # data/gemm caches; the single-valued KWG, KWI, STRM, STRN, PRECISION substituted: KWG = 32, KWI = 2).
    "gemm_clblast": [
        "MWG % (MDIMC*VWM) == 0",
        "NWG % (NDIMC*VWN) == 0",
        "MWG % (MDIMA*VWM) == 0",
        "NWG % (NDIMB*VWN) == 0",
        "32 % ((MDIMC*NDIMC)/MDIMA) == 0",
        "32 % ((MDIMC*NDIMC)/NDIMB) == 0",
    ],
    # pnpoly (the hub's currently_unused/cachefiles/KernelTuner data/pnpoly caches): every combination measured.
    "pnpoly": [],
    "dedispersion_milo": [
        "32 <= block_size_x*block_size_y && block_size_x*block_size_y <= 1024",
        "tile_size_x > 1 || tile_stride_x == 0",
        "tile_size_y > 1 || tile_stride_y == 0",
    ],
}


def admitted(restrictions, config):
    env = dict(config)
    for r in restrictions:
        py = r.replace("&&", " and ").replace("||", " or ")
        py = re.sub(r"!(?!=)", " not ", py)
        if not eval(py, {}, env):  # noqa: S307 - fixed expressions above, integer parameters only
            return False
    return True


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in RESTRICTIONS:
        sys.exit(__doc__)
    kernel, cache_path, out_path = sys.argv[1:]
    try:
        doc = json.load(gzip.open(cache_path))
        missing = [k for k in ("tune_params", "cache") if k not in doc]
        if missing:
            raise ValueError(f"no {', '.join(missing)}")
    except (OSError, ValueError, TypeError) as e:
        sys.exit(f"{cache_path}: not a readable gzip-compressed Kernel Tuner cache ({e!r})")
    params = {k: v for k, v in doc["tune_params"].items() if len(v) > 1}
    names = list(params)
    restrictions = RESTRICTIONS[kernel]
    results, seen = [], set()
    for entry in doc["cache"].values():
        config = {n: entry[n] for n in names}
        key = tuple(config[n] for n in names)
        if key in seen:
            sys.exit(f"{cache_path}: configuration {config} twice")
        seen.add(key)
        row = dict(config)
        t = entry["time"]
        if isinstance(t, (int, float)) and t > 0:
            row.update(valid=True, time_ms=float(t))
        else:
            row.update(valid=False, reason=f"Kernel Tuner: {t}")
        results.append(row)
    enumerated = {tuple(c) for c in itertools.product(*params.values())
                  if admitted(restrictions, dict(zip(names, c)))}
    if enumerated != seen:
        sys.exit(f"{cache_path}: restrictions admit {len(enumerated)} configurations, the cache holds {len(seen)} "
                 f"({len(enumerated - seen)} not measured, {len(seen - enumerated)} measured but excluded)")
    valid = [r["time_ms"] for r in results if r["valid"]]
    cache_file = os.path.basename(cache_path)
    gpu = cache_file.split(".")[0]
    family = kernel.split("_")[0]
    if gpu.startswith(family + "_"):  # this repository's copies: kernel_tuner_caches/gemm_RTX_3090.json.gz
        gpu = gpu[len(family) + 1:]
    # The copies in bench/autotune/spaces/kernel_tuner_caches say where they come from.
    source = doc.get("source") or ("AutoTuningAssociation/benchmark_hub (MIT licence, doi:10.5281/zenodo.15364124), "
                                   f"cachefiles/{kernel}/{cache_file}")
    out = {
        "kind": "rocm-perf-lab measured tuning space",
        "name": f"kt_{family}_{gpu}",
        "device": doc.get("device_name") or gpu,
        "source": f"{source}; Kernel Tuner brute force, objective 'time' (ms)",
        "problem": f"{doc.get('kernel_name')} {doc.get('problem_size')}",
        "space": {"parameters": params, "restrictions": restrictions},
        "configurations_compiled": len(results),
        "valid": len(valid),
        "invalid": len(results) - len(valid),
        "best_ms": min(valid),
        "results": results,
    }
    with gzip.open(out_path, "wt") as f:
        json.dump(out, f, separators=(",", ":"))
    print(f"{out_path}: {len(results)} configurations, {len(valid)} valid, best {min(valid):.4f} ms")


if __name__ == "__main__":
    main()
