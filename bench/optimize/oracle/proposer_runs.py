#!/usr/bin/env python3
"""The proposer's whole runs in unroll_oracle.sh archives: per naive kernel, how many candidates it tried, its
decision and the wall time of the whole `rocm-perf optimize` run (profile, counter pass, captures, candidates,
end-to-end gate), from <kernel>/proposer/stdout.json and the "exit N after S s" line of optimize.log.

    proposer_runs.py unroll-oracle.tar.gz [...]
"""
import io
import json
import re
import sys
import tarfile

print("kernel candidates decision wall_s")
for path in sys.argv[1:]:
    with tarfile.open(path) as tar:
        names = tar.getnames()
        for n in sorted(x for x in names if x.endswith("/proposer/stdout.json")):
            k = n.split("/")[-3]
            doc = json.load(tar.extractfile(n))
            log = tar.extractfile(n.replace("stdout.json", "optimize.log")).read().decode()
            m = re.findall(r"exit (\d+) after (\S+) s", log)
            print(k, len(doc["candidates"]), doc["decision"]["status"], f"{float(m[-1][1]):.1f}" if m else "-")
