"""What the scripts that run our search over the measured spaces share (ours_batch.py, screen_variants.py): the
command that runs build/bench/autotune_quality or a packed copy of it, the spaces asked for, their tables unpacked
for the binary, and the header line of a raw file. The space names come from inprocess_bench.all_spaces, as
everywhere."""
import concurrent.futures
import datetime
import gzip
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from inprocess_bench import UNSEEN, all_spaces  # noqa: E402


def quality_command(binary, pack, nice, tool):
    """The command line that runs autotune_quality: `binary`, or with `pack` (a folder made by kt_anchor_pack.sh)
    its copy through the packed loader and libraries; under `nice` when nonzero. Exits naming `tool` when the
    binary is missing."""
    if pack:
        pack = os.path.abspath(pack)
        command = [os.path.join(pack, "ours", "lib", "ld-linux-x86-64.so.2"), "--library-path",
                   os.path.join(pack, "ours", "lib"), os.path.join(pack, "ours", "autotune_quality")]
    else:
        command = [os.path.abspath(binary)]
    if not os.access(command[0], os.X_OK):
        sys.exit(f"{tool}: {command[0]} not found or not executable")
    return ["nice", "-n", str(nice)] + command if nice else command


def pick_spaces(requested, tool, list_known=False):
    """(every space by name, the names asked for: `requested`, or all but the unseen ones). Exits naming `tool` on
    an unknown name."""
    spaces = all_spaces()
    names = requested or [n for n in spaces if not n.startswith(UNSEEN)]
    unknown = [n for n in names if n not in spaces]
    if unknown:
        known = f" (known: {', '.join(spaces)})" if list_known else ""
        sys.exit(f"{tool}: unknown space(s) {', '.join(unknown)}{known}")
    return spaces, names


def unpack_spaces(names, spaces, folder):
    """Each space's table as plain JSON in `folder` (the binary reads no gzip): ({name: path}, {name: valid
    configurations})."""
    plain, valid = {}, {}
    for n in names:
        data = gzip.open(spaces[n], "rb").read() if spaces[n].endswith(".gz") else open(spaces[n], "rb").read()
        plain[n] = os.path.join(folder, n + ".json")
        with open(plain[n], "wb") as f:
            f.write(data)
        valid[n] = sum(1 for r in json.loads(data)["results"] if r["valid"])
    return plain, valid


def run_header(pack):
    """A raw file's header line: date, host, cpus, command, this checkout's commit, and what `pack` says it holds."""
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    header = {"header": True, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "host": os.uname().nodename, "cpus": os.cpu_count(), "command": " ".join(sys.argv),
              "rocm_perf_lab_commit": commit}
    if pack and os.path.exists(os.path.join(pack, "PACKED.txt")):
        header["pack"] = open(os.path.join(pack, "PACKED.txt")).read().strip().splitlines()
    return header


def run_all(tasks, run, jobs, tool):
    """`run` over `tasks` on `jobs` threads (each run starts a process), progress on stderr every 50 runs."""
    print(f"{tool}: {len(tasks)} runs over {jobs} processes", file=sys.stderr, flush=True)
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for i, _ in enumerate(pool.map(run, tasks), 1):
            if i % 50 == 0 or i == len(tasks):
                print(f"{tool}: {i}/{len(tasks)} done", file=sys.stderr, flush=True)


def resume_out(out, key, header):
    """The keys (`key(record)`, None for lines to skip) of the runs OUT already holds, so a stopped run resumes; then
    appends `header` to OUT."""
    done = set()
    if os.path.exists(out):
        with open(out) as f:
            done = {k for k in map(key, map(json.loads, f)) if k is not None}
    with open(out, "a") as f:
        f.write(json.dumps(header) + "\n")
    return done
