#!/usr/bin/env python3
"""A stand-in for rocm-perf used by `DRY=1 gpu_sweep.sh` (no GPU): answers capture --all-kernels, replay full-vm
and profile with fake but well-formed outputs, so that the script's own logic can be run anywhere."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_sweep_table import KERNELS, make_db, replay_doc  # noqa: E402


def opt(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else "--version"
    if cmd == "--version":
        print("rocm-perf (dry stand-in)")
    elif cmd == "capture":
        out = opt("-o")
        os.makedirs(out, exist_ok=True)
        kernels = []
        for i, (kdir, mangled, demangled, status, grid, block) in enumerate(KERNELS):
            os.makedirs(os.path.join(out, kdir), exist_ok=True)
            with open(os.path.join(out, kdir, "manifest.json"), "w") as f:
                json.dump({"geometry": {"grid": grid, "block": block, "dynamic_shared_bytes": 0}}, f)
            kernels.append({"order": i + 1, "kernel": mangled, "demangled": demangled, "dir": kdir, "status": status,
                            "reason": "", "launches_seen": 1, "region_bytes": 10})
        with open(os.path.join(out, "index.json"), "w") as f:
            json.dump({"schema_version": 1, "application": "exited with status 0", "kernels": kernels}, f)
        print(f"{len(kernels)} distinct kernels: {len(kernels)} captured")
    elif cmd == "replay":
        d = os.path.basename(opt("--capture-dir").rstrip("/"))
        status = "mismatch" if d == "k0006" else "match"
        print(json.dumps(replay_doc(status, 1000 + 10 * int(d[1:]), opt("--cache"))))
        return 13 if status == "mismatch" else 0
    elif cmd == "profile":
        out = opt("-o")
        os.makedirs(out, exist_ok=True)
        db = os.path.join(out, "1_results.db")
        if os.path.exists(db):
            os.remove(db)
        make_db(db, [(m, g, b, 1000 + 10 * int(d[1:])) for d, m, _, _, g, b in KERNELS])
        with open(os.path.join(out, "profile.json"), "w") as f:
            json.dump({"runs": {"per_run": [{"databases": [db]}]}}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
