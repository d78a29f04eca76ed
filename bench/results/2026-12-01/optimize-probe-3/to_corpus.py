#!/usr/bin/env python3
"""Lays out the probe's correct cases as bench/optimize/corpus is laid out, for scripts/gpu/optimizer_corpus.sh
(CORPUS_DIR): DEST/APP.cu (the apps, with their kernel markers) and DEST/candidates/NAME.cu (//@app, //@kernel,
//@what, //@rtol, //@include lines, then the text that replaces the kernel's marked region: the spec's `before`,
the lines of its `includes` section that are not #include, its kernel and its `after`, in that order).
Only cases expected to be admitted, without host edits (//@replace) or whitespace transforms (//@transform), and,
when ADMITTED_LIST is given (run_after.out), those the gates admitted.
Usage: to_corpus.py DEST [ADMITTED_LIST]"""
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
# float results whose summation order the optimizations change; the others are compared bit for bit
RTOL = {"sgemm_naive": "1e-5", "hgemm_naive": "1e-2", "bias_gelu_half": "5e-3", "rmsnorm_bf16": "1e-2", "sum_atomic": "1e-5", "gemv": "1e-5", "conv2d_3x3": "1e-5"}

dest = pathlib.Path(sys.argv[1])
admitted = None
if len(sys.argv) > 2:
    admitted = {l.split()[0] for l in pathlib.Path(sys.argv[2]).read_text().splitlines() if l.endswith("OVERALL ADMITTED")}
(dest / "candidates").mkdir(parents=True, exist_ok=True)
for app in (HERE / "apps").glob("*.cu"):
    (dest / app.name).write_text(app.read_text())
n = 0
for spec in sorted((HERE / "specs").glob("*.cu")):
    meta, sections, cur, skip = {}, {}, None, False
    for line in spec.read_text().split("\n"):
        if line.startswith("//@@ "):
            cur = line[5:].strip()
            sections[cur] = []
            continue
        if cur is None and line.startswith("//@"):
            key, _, value = line[3:].partition(" ")
            skip = skip or key in ("replace", "transform")
            meta[key] = value.strip()
            continue
        if cur is not None:
            sections[cur].append(line)
    if skip or meta.get("expect") not in ("admit", "runtime") or (admitted is not None and spec.stem not in admitted):
        continue
    includes = [l for l in sections.get("includes", []) if l.startswith("#include")]
    other = [l for l in sections.get("includes", []) if not l.startswith("#include") and l.strip()]
    kernel = sections.get("kernel")
    if kernel is None:
        app = (HERE / "apps" / meta["app"]).read_text().split("\n")
        b, e = app.index(f"// @kernel {meta['kernel']} {{"), app.index(f"// @kernel {meta['kernel']} }}")
        kernel = app[b + 1:e]
    head = [f"//@app {meta['app']}", f"//@kernel {meta['kernel']}", f"//@what {meta.get('what', '')}"]
    if meta["kernel"] in RTOL:
        head.append(f"//@rtol {RTOL[meta['kernel']]}")
    head += [f"//@include {l[len('#include'):].strip()}" for l in includes]
    body = sections.get("before", []) + other + kernel + sections.get("after", [])
    (dest / "candidates" / spec.name).write_text("\n".join(head + body).rstrip("\n") + "\n")
    n += 1
print(f"{n} cases in {dest}")
