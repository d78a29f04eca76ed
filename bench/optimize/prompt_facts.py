#!/usr/bin/env python3
"""The prompt the LLM proposer sent for a kernel, from a run's llm-transcript.jsonl, and whether it carries the
facts issue 27 section 2 asks for (GPU with peaks, time shares, launch geometry, resources and occupancy,
achieved rates against the roof with the bound label, the bottleneck with its evidence, counters and stall
reasons when counters were taken, previous verdicts) and nothing that says "unknown" or is a raw key name.

    prompt_facts.py TRANSCRIPT.jsonl PROMPT_OUT.txt

Writes the first "propose" request's user message to PROMPT_OUT.txt, prints one line per check, exit 1 if one fails.
"""
import json
import re
import sys

lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
req = next(l for l in lines if l.get("kind") == "request" and l.get("purpose", "propose") == "propose")
prompt = req["body"]["messages"][-1]["content"]
open(sys.argv[2], "w").write(prompt)
checks = [
    ("GPU named, with SM count and peaks", r"- GPU: .*(SM|compute unit).*GB/s"),
    ("time share of the GPU / critical path", r"- time: "),
    ("launch geometry", r"- launch geometry: grid of \d+x\d+x\d+ blocks, \d+x\d+x\d+ threads per block"),
    ("registers per thread", r"\d+ registers per thread"),
    ("theoretical occupancy with its limiter", r"- theoretical occupancy: [\d.]+%, limited by "),
    ("achieved rates against the roof, bound label", r"- achieved: .*(GB/s|GFLOP/s).*of (peak bandwidth|the FP32 peak)"),
    ("bottleneck with evidence", r"- primary bottleneck: |- bottleneck: no rule fired"),
    ("counters (default counter pass)", r"- counters: "),
    ("stall reasons", r"- stall reasons: "),
    ("previous candidates' verdicts section", r"None yet|verdict"),
]
failed = 0
for name, pattern in checks:
    ok = re.search(pattern, prompt) is not None
    failed += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {name}")
for bad in ["unknown", "_ns:", "occupancy_limiter", "speed_of_light_compute_ns", "hbm_gbps"]:
    ok = bad not in prompt
    failed += not ok
    print(f"{'ok  ' if ok else 'FAIL'} no '{bad}' in the prompt")
print(f"prompt: {len(prompt)} characters, {failed} failed checks")
sys.exit(1 if failed else 0)
