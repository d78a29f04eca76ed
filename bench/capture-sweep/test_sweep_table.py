#!/usr/bin/env python3
"""sweep_table.py on fake inputs (no GPU): a sweep index with captured, failed and skipped kernels, replay
documents of every outcome, a rocpd database with the same kernel at two geometries, warm/cold timings.
Run by tests/test_capture_sweep.cpp; exits non-zero on a failure."""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "sweep_table.py")
sys.path.insert(0, HERE)
import sweep_table  # noqa: E402  (the module under test, for its pure functions)

KERNELS = [  # dir, mangled, demangled, capture status, grid, block
    ("k0001", "_Z4gemmv", "void cutlass_gemm_kernel<bf16>()", "captured", [4, 2, 1], [128, 1, 1]),
    ("k0002", "_Z2lnv", "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float>()", "captured", [64, 1, 1], [256, 1, 1]),
    ("k0003", "_Z2smv", "void cunn_SoftMaxForward<4>()", "captured", [16, 1, 1], [512, 1, 1]),
    ("k0004", "_Z2fav", "void pytorch_flash::flash_fwd_kernel<>()", "captured", [8, 8, 1], [128, 1, 1]),
    ("k0005", "_Z2adv", "void at::native::multi_tensor_apply_kernel<FusedAdamMathFunctor>()", "captured", [32, 1, 1], [512, 1, 1]),
    ("k0006", "_Z2bad", "void broken_kernel()", "captured", [1, 1, 1], [32, 1, 1]),
    ("k0007", "_Z2ewv", "void at::native::vectorized_elementwise_kernel<4>()", "captured", [100, 1, 1], [128, 1, 1]),
]


def replay_doc(status, median=None, cache=None):
    doc = {"verification": {"status": status, "reason": "" if status == "match" else "1 byte differs"}}
    if median is not None:
        doc["gpu_time_ns"] = {"median": median, "mean": median, "min": median, "max": median, "per_iteration": [median]}
    if cache:
        doc["cache"] = cache
    return doc


def make_db(path, dispatches):
    conn = sqlite3.connect(path)
    conn.executescript("""
      CREATE TABLE rocpd_info_kernel_symbol (id INTEGER, guid TEXT, display_name TEXT, kernel_name TEXT, arch_vgpr_count INTEGER);
      CREATE TABLE rocpd_event (id INTEGER, guid TEXT, stack_id INTEGER);
      CREATE TABLE rocpd_kernel_dispatch (id INTEGER, guid TEXT, dispatch_id INTEGER, start INTEGER, "end" INTEGER,
        stream_id INTEGER, queue_id INTEGER, agent_id INTEGER, tid INTEGER, kernel_id INTEGER, event_id INTEGER,
        grid_size_x INTEGER, grid_size_y INTEGER, grid_size_z INTEGER,
        workgroup_size_x INTEGER, workgroup_size_y INTEGER, workgroup_size_z INTEGER,
        group_segment_size INTEGER, private_segment_size INTEGER);""")
    symbols = {}
    for i, (mangled, grid, block, dur) in enumerate(dispatches):
        if mangled not in symbols:
            symbols[mangled] = len(symbols) + 1
            conn.execute("INSERT INTO rocpd_info_kernel_symbol VALUES (?, 'g', ?, ?, 0)", (symbols[mangled], mangled, mangled))
        work = [g * b for g, b in zip(grid, block)]
        conn.execute("INSERT INTO rocpd_event VALUES (?, 'g', ?)", (i + 1, i + 1))
        conn.execute("INSERT INTO rocpd_kernel_dispatch VALUES (?, 'g', ?, ?, ?, 1, 1, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)",
                     (i + 1, i + 1, 1000 * i, 1000 * i + dur, symbols[mangled], i + 1, *work, *block))
    conn.commit()
    conn.close()


def add_steps(path, launches, steps):
    """API regions for make_db's dispatches: `launches` = host start of each dispatch's launch call (in the
    order make_db inserted them; correlation = stack_id = index + 1), `steps` = (name, start, end) ranges."""
    conn = sqlite3.connect(path)
    conn.executescript("""
      ALTER TABLE rocpd_event ADD COLUMN category_id INTEGER;
      CREATE TABLE rocpd_string (id INTEGER, guid TEXT, string TEXT);
      CREATE TABLE rocpd_region (id INTEGER, guid TEXT, start INTEGER, "end" INTEGER, tid INTEGER, name_id INTEGER,
        event_id INTEGER);
      CREATE TABLE rocpd_arg (event_id INTEGER, name TEXT, value TEXT, extdata TEXT);
      INSERT INTO rocpd_string VALUES (1, 'g', 'cudaLaunchKernel'), (2, 'g', 'train_step'), (3, 'g', 'warmup');""")
    event = 1000
    for i, t in enumerate(launches):
        event += 1
        conn.execute("INSERT INTO rocpd_event VALUES (?, 'g', ?, 0)", (event, i + 1))
        conn.execute("INSERT INTO rocpd_region VALUES (?, 'g', ?, ?, 1, 1, ?)", (event, t, t + 5, event))
    for name, lo, hi in steps:
        event += 1
        conn.execute("INSERT INTO rocpd_event VALUES (?, 'g', 0, 0)", (event,))
        conn.execute("INSERT INTO rocpd_region VALUES (?, 'g', ?, ?, 1, ?, ?)",
                     (event, lo, hi, 2 if name == "train_step" else 3, event))
    conn.commit()
    conn.close()


def slurp(path):
    with open(path) as f:
        return f.read()


class SweepTable(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        t = self.tmp.name
        self.sweep = os.path.join(t, "sweep")
        self.replays = os.path.join(t, "replays")
        self.timing = os.path.join(t, "timing")
        self.profile = os.path.join(t, "profile")
        for d in (self.sweep, self.replays, self.timing, self.profile):
            os.makedirs(d)
        kernels = []
        for i, (kdir, mangled, demangled, status, grid, block) in enumerate(KERNELS):
            os.makedirs(os.path.join(self.sweep, kdir))
            with open(os.path.join(self.sweep, kdir, "manifest.json"), "w") as f:
                json.dump({"geometry": {"grid": grid, "block": block, "dynamic_shared_bytes": 0}}, f)
            kernels.append({"order": i + 1, "kernel": mangled, "demangled": demangled, "dir": kdir, "status": status,
                            "reason": "", "launches_seen": 1, "region_bytes": 10})
        kernels.append({"order": 8, "kernel": "_Z2sk", "demangled": "skipped_kernel()", "dir": None, "status": "failed",
                        "reason": "the cubin holding _Z2sk could not be had: loaded by cuModuleLoadData (PTX)",
                        "launches_seen": 1, "region_bytes": 0})
        self.index = os.path.join(self.sweep, "index.json")
        with open(self.index, "w") as f:
            json.dump({"schema_version": 1, "application": "exited with status 0", "kernels": kernels}, f)
        outcomes = {"k0001": ("nondeterministic", 0), "k0002": ("match", 0), "k0003": ("match", 0),
                    "k0004": ("match", 0), "k0005": ("match", 0), "k0006": ("mismatch", 13), "k0007": ("match", 0)}
        for kdir, (status, rc) in outcomes.items():
            with open(os.path.join(self.replays, kdir + ".json"), "w") as f:
                json.dump(replay_doc(status, 1000), f)
            with open(os.path.join(self.replays, kdir + ".rc"), "w") as f:
                f.write(f"{rc}\n")
        # k0007: the runner died without a document.
        os.remove(os.path.join(self.replays, "k0007.json"))
        with open(os.path.join(self.replays, "k0007.rc"), "w") as f:
            f.write("8\n")
        with open(os.path.join(self.replays, "k0007.stderr"), "w") as f:
            f.write("rpl-replay: starting\nrpl-replay: cuModuleLoadData failed: CUDA_ERROR_INVALID_IMAGE\n")
        # The GEMM runs at two shapes in the application: only the captured shape's durations count.
        db = os.path.join(self.profile, "1_results.db")
        disp = [("_Z4gemmv", [4, 2, 1], [128, 1, 1], d) for d in (10000, 10200, 9800)]
        disp += [("_Z4gemmv", [64, 2, 1], [128, 1, 1], 90000)] * 5
        disp += [("_Z2lnv", [64, 1, 1], [256, 1, 1], 5000)] * 3
        disp += [("_Z2smv", [16, 1, 1], [512, 1, 1], 3000)] * 3
        disp += [("_Z2fav", [8, 8, 1], [128, 1, 1], 20000)] * 3
        disp += [("_Z2adv", [32, 1, 1], [512, 1, 1], 7000)] * 3
        disp += [("_Z2adv", [31, 1, 1], [512, 1, 1], 1)]  # another geometry, ignored
        make_db(db, disp)
        with open(os.path.join(self.profile, "profile.json"), "w") as f:
            json.dump({"runs": {"per_run": [{"databases": [db]}]}}, f)
        # Timings: GEMM in band, layer norm in band near cold, attention outside (+12% over both).
        for kdir, warm, cold in (("k0001", 9900, 10600), ("k0002", 4700, 5050), ("k0004", 17000, 17500)):
            for mode, v in (("warm", warm), ("cold", cold)):
                with open(os.path.join(self.timing, f"{kdir}.{mode}.json"), "w") as f:
                    json.dump(replay_doc("match", v, mode), f)
        # Without the warm-up, k0004 (attention) lies in the band: 19.5 µs cold.
        for mode, v in (("warm-nowarmup", 18000), ("cold-nowarmup", 19500)):
            with open(os.path.join(self.timing, f"k0004.{mode}.json"), "w") as f:
                json.dump(replay_doc("match", v, mode.split("-")[0]), f)

    def tearDown(self):
        self.tmp.cleanup()

    def run_tool(self, *args):
        r = subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def test_inapp_matches_name_and_geometry(self):
        out = os.path.join(self.tmp.name, "inapp.json")
        self.run_tool("inapp", "--profile", self.profile, "--index", self.index, "--out", out)
        k = json.loads(slurp(out))["kernels"]
        self.assertEqual(k["k0001"]["median_ns"], 10000)  # not the 90 µs shape
        self.assertEqual(k["k0001"]["samples"], 3)
        self.assertEqual(k["k0005"]["samples"], 3)
        self.assertEqual(k["k0001"]["matched_by"], "name+geometry")
        self.assertNotIn("k0006", k)  # never ran in the profiled application

    def test_select_covers_classes_and_only_replayed_kernels(self):
        inapp = os.path.join(self.tmp.name, "inapp.json")
        self.run_tool("inapp", "--profile", self.profile, "--index", self.index, "--out", inapp)
        chosen = self.run_tool("select", "--index", self.index, "--replays", self.replays, "--inapp", inapp,
                               "--count", "4").split()
        self.assertEqual(chosen, ["k0004", "k0002", "k0003", "k0005"])  # attention, layer norm, softmax, optimizer
        every = self.run_tool("select", "--index", self.index, "--replays", self.replays, "--inapp", inapp).split()
        self.assertEqual(sorted(every), ["k0001", "k0002", "k0003", "k0004", "k0005"])  # not the mismatch, not k0007

    def test_table_counts_reasons_and_bands(self):
        inapp = os.path.join(self.tmp.name, "inapp.json")
        self.run_tool("inapp", "--profile", self.profile, "--index", self.index, "--out", inapp)
        md, js = os.path.join(self.tmp.name, "t.md"), os.path.join(self.tmp.name, "t.json")
        figures = json.loads(self.run_tool("table", "--index", self.index, "--replays", self.replays, "--inapp", inapp,
                                           "--timing", self.timing, "--md", md, "--json", js))
        self.assertEqual(figures["distinct_kernels"], 8)
        self.assertEqual(figures["captured"], 7)
        self.assertEqual(figures["replayed_ok"], 5)
        self.assertEqual(figures["replayed_nondeterministic"], 1)
        self.assertFalse(figures["target_met"])
        self.assertEqual(figures["by_status"], {"nondeterministic": 1, "match": 4, "mismatch": 1, "failed": 1,
                                                "capture failed": 1})
        doc = json.loads(slurp(js))
        rows = {r["dir"]: r for r in doc["kernels"]}
        self.assertEqual(rows["k0006"]["reason"], "exit 13: 1 byte differs")
        self.assertIn("CUDA_ERROR_INVALID_IMAGE", rows["k0007"]["reason"])
        self.assertEqual(rows["k0002"]["class"], "layer_norm")
        self.assertEqual(rows["k0001"]["class"], "gemm")
        t = {x["dir"]: x for x in doc["timings"]}
        self.assertTrue(t["k0001"]["within"])
        self.assertEqual(t["k0001"]["closest"], "warm")
        self.assertTrue(t["k0002"]["within"])
        self.assertEqual(t["k0002"]["closest"], "cold")
        self.assertFalse(t["k0004"]["within"])  # 20 µs in-app vs [16.49, 18.03]
        self.assertEqual(t["k0001"]["warm_cache_reported"], "warm")
        self.assertEqual(figures["timed_within_band"], 2)
        self.assertTrue(t["k0004"]["within_nowarmup"])
        self.assertNotIn("within_nowarmup", t["k0001"])
        self.assertEqual(figures["timed_within_band_nowarmup"], 1)
        self.assertEqual(t["k0004"]["variants"], {"warm-nowarmup": 18000, "cold-nowarmup": 19500})
        self.assertEqual(figures["vectorized_layer_norm_kernels"][0]["replay"], "match")
        text = slurp(md)
        self.assertIn("5 replayed in a fresh process", text)
        self.assertIn("NOT met", text)
        self.assertIn("| layer_norm |", text)
        self.assertIn("(1 of 3 without the warm-up)", text)
        self.assertIn("cold, no warm-up µs", text)


class SameLaunchInEachStep(unittest.TestCase):
    """The capture took launch 2 of an optimizer kernel (one launch before the first step, then its first launch
    in the step); each step launches it twice at that shape, on different tensors: 1.7 µs, then 1.4 µs. The
    in-app time to compare with is the first of each step's pair, not the median of all."""

    def test_the_captured_launchs_counterparts_are_compared(self):
        with tempfile.TemporaryDirectory() as t:
            sweep, replays, timing, profile = (os.path.join(t, d) for d in ("sweep", "replays", "timing", "profile"))
            for d in (sweep, replays, timing, profile):
                os.makedirs(d)
            os.makedirs(os.path.join(sweep, "k0001"))
            with open(os.path.join(sweep, "k0001", "manifest.json"), "w") as f:
                json.dump({"geometry": {"grid": [64, 1, 1], "block": [128, 1, 1], "dynamic_shared_bytes": 0},
                           "kernel": {"dispatch_index": 2}}, f)
            index = os.path.join(sweep, "index.json")
            with open(index, "w") as f:
                json.dump({"kernels": [{"order": 1, "kernel": "_Z7addcdivv", "demangled": "addcdiv_kernel()",
                                        "dir": "k0001", "status": "captured", "reason": ""}]}, f)
            with open(os.path.join(replays, "k0001.json"), "w") as f:
                json.dump(replay_doc("match", 1000), f)
            with open(os.path.join(replays, "k0001.rc"), "w") as f:
                f.write("0\n")
            for mode, v in (("warm", 1650), ("cold", 2400)):
                with open(os.path.join(timing, f"k0001.{mode}.json"), "w") as f:
                    json.dump(replay_doc("match", v, mode), f)
            geo = ([64, 1, 1], [128, 1, 1])
            # init, then warm-up (one range, two steps), then three train steps: two launches each.
            disp = [("_Z7addcdivv", *geo, 1000)] + [("_Z7addcdivv", *geo, d) for d in (1750, 1400) * 5]
            launches = [10] + [100 + 10 * i for i in range(10)]
            db = os.path.join(profile, "1_results.db")
            make_db(db, disp)
            add_steps(db, launches, [("warmup", 95, 137), ("train_step", 138, 157), ("train_step", 158, 177),
                                     ("train_step", 178, 197)])
            with open(os.path.join(profile, "profile.json"), "w") as f:
                json.dump({"runs": {"per_run": [{"databases": [db]}]}}, f)
            inapp = os.path.join(t, "inapp.json")
            subprocess.run([sys.executable, TOOL, "inapp", "--profile", profile, "--index", index, "--out", inapp],
                           check=True, capture_output=True)
            k = json.loads(slurp(inapp))["kernels"]["k0001"]
            self.assertEqual(k["same_instance"], {"median_ns": 1750, "samples": 3, "place_in_step": 1})
            self.assertEqual(k["median_ns"], 1400)  # all eleven launches of the shape
            md, js = os.path.join(t, "t.md"), os.path.join(t, "t.json")
            subprocess.run([sys.executable, TOOL, "table", "--index", index, "--replays", replays, "--inapp", inapp,
                            "--timing", timing, "--md", md, "--json", js], check=True, capture_output=True)
            row = json.loads(slurp(js))["timings"][0]
            self.assertEqual(row["in_app_ns"], 1750)
            self.assertEqual(row["in_app_matched"], "same launch in each step")
            self.assertTrue(row["within"])  # [1650, 2400] widened by 3%
            self.assertFalse(row["within_shape"])  # 1400 is below 1600.5
            self.assertIn("1 of 1 within (0 of 1 against every launch of the shape)", slurp(md))


class KernelClasses(unittest.TestCase):
    def test_adamw_kernels_are_optimizer_kernels(self):
        name = ("void at::native::vectorized_elementwise_kernel<8, at::native::addcdiv_cuda_kernel("
                "at::TensorIteratorBase&, c10::Scalar const&)::{lambda()#2}>(int, ...)")
        self.assertEqual(sweep_table.kernel_class(name), "optimizer")
        self.assertEqual(sweep_table.kernel_class("void at::native::vectorized_elementwise_kernel<4, "
                                                  "at::native::CUDAFunctor_add<float>>"), "elementwise")


if __name__ == "__main__":
    unittest.main()
