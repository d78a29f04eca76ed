"""Checks the outputs of bench/multigpu/gpu_multi.sh (its work folder) and prints PASS/FAIL lines.
   python3 check_multi.py WORKDIR [--single-gpu]"""
import json
import os
import sys

work = sys.argv[1]
single = "--single-gpu" in sys.argv[2:]
failures = 0


def check(name, ok, detail=""):
    global failures
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}")
    failures += 0 if ok else 1


def load(name):
    path = os.path.join(work, name)
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        check(f"{name} readable", False, str(e))
        return None


def ranks_ok(doc, label):
    ranks = doc["ranks"]
    check(f"{label}: two ranks", len(ranks) == 2, f"{len(ranks)} ranks")
    check(f"{label}: ranks 0 and 1 recorded by the launcher",
          sorted(r["rank"] for r in ranks) == [0, 1] and all(r["rank_recorded"] for r in ranks),
          str([(r["rank"], r["rank_recorded"], r["host"], r["gpu"]) for r in ranks]))
    gpus = {r["gpu"] for r in ranks}
    if not single:
        check(f"{label}: two distinct GPUs", len(gpus) == 2, str(gpus))
    return ranks


# (a) DDP through the launcher.
ddp = load("ddp/ranks/multi_rank.json")
if ddp:
    ranks = ranks_ok(ddp, "ddp")
    if not single:
        check("ddp: NCCL collective kernels on every rank", all(r["collective_kernels"] > 0 for r in ranks),
              str([r["collective_kernels"] for r in ranks]))
        ops = {c["operation"] for c in ddp["collectives"]}
        check("ddp: an AllReduce recognised", "AllReduce" in ops, str(sorted(ops)))
        check("ddp: communication time measured", all(r["communication_ms"] > 0 for r in ranks))
        check("ddp: critical path joins collectives", ddp["critical_path"]["joins"] > 0,
              str(ddp["critical_path"]["joins"]))
    pf = os.path.join(work, "ddp/ranks/multi_rank.perfetto.json")
    try:
        pids = {e["pid"] for e in json.load(open(pf))["traceEvents"]}
        check("ddp: Perfetto has one process per rank", pids == {0, 1}, str(pids))
    except (OSError, ValueError, KeyError) as e:
        check("ddp: Perfetto readable", False, str(e))

# (b1) straggler through the launcher, (b2) with --rank-wrapper.
for label, name in (("straggler", "straggler/ranks/multi_rank.json"), ("wrapper", "wrapper/analysis/multi_rank.json")):
    doc = load(name)
    if not doc:
        continue
    ranks_ok(doc, label)
    if single:
        print(f"SKIP {label}: straggler check needs NCCL (two GPUs)")
        continue
    st = doc["stragglers"]
    print(f"   {label} stragglers: " + json.dumps([{k: s[k] for k in ('rank', 'collective', 'imposed_wait_ms', 'share')} for s in st]))
    check(f"{label}: rank 1 named the straggler", bool(st) and st[0]["rank"] == 1)
    check(f"{label}: at the all-gather", bool(st) and "AllGather" in st[0]["collective"],
          st[0]["collective"] if st else "no straggler")
    check(f"{label}: rank 1 alone", len(st) == 1, str(len(st)))
    if st:
        check(f"{label}: the wait it imposed is about 6 x 60 ms", 200 <= st[0]["imposed_wait_ms"] <= 600,
              f"{st[0]['imposed_wait_ms']:.1f} ms")
        check(f"{label}: the evidence says host-side", "on the host" in st[0]["evidence"], st[0]["evidence"])
    r0 = [r for r in doc["ranks"] if r["rank"] == 0]
    check(f"{label}: rank 0 waited in collectives", bool(r0) and r0[0]["collective_wait_ms"] > 200,
          f"{r0[0]['collective_wait_ms']:.1f} ms" if r0 else "")
    hot = doc["critical_path"]["hotspots"]
    print(f"   {label} critical path hotspots: " + json.dumps(hot[:4]))
    offs = doc["clock_offsets"]
    print(f"   {label} clock offsets: " + json.dumps(offs))

# (c) split / merge equals the direct analysis.
merged = load("merged/multi_rank.json")
direct = load("straggler/ranks/multi_rank.json")
if merged and direct:
    check("split/merge gives the direct analysis", merged == direct)

print(f"check_multi: {failures} failure(s)")
sys.exit(1 if failures else 0)
