#!/usr/bin/env python3
"""Writes the corpus of correct optimizations (issue 27) as whole candidate sources into DIR, and DIR/cases.tsv:
case, app, kernel, candidate file, rtol ("" for bit-exact), what the optimization is.
Usage: make_corpus.py DIR [CORPUS]: CORPUS is this folder (CUDA) by default, or another laid out the same way
(../corpus-hip: HIP, .hip candidates).

Each candidates/NAME.cu (or .hip) starts with "//@" header lines (app, kernel, include, rtol, what) and holds the new kernel;
it replaces the text between "// @kernel KERNEL {" and "// @kernel KERNEL }" of the app, and each "//@include <h>"
adds "#include <h>" after the app's first #include (a toolkit header: allowed)."""
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent


def build(candidate, here):
    head, body = {}, []
    includes = []
    for line in candidate.read_text().splitlines(keepends=True):
        if line.startswith("//@") and not body:
            key, _, value = line[3:].strip().partition(" ")
            if key == "include":
                includes.append(value)
            else:
                head[key] = value
        else:
            body.append(line)
    for key in ("app", "kernel", "what"):
        if key not in head:
            sys.exit(f"make_corpus.py: {candidate.name} has no //@{key} line")
    app = (here / head["app"]).read_text()
    begin, end = f"// @kernel {head['kernel']} {{\n", f"// @kernel {head['kernel']} }}\n"
    if begin not in app or end not in app:
        sys.exit(f"make_corpus.py: {head['app']} has no markers for kernel {head['kernel']}")
    b, e = app.index(begin) + len(begin), app.index(end)
    text = app[:b] + "".join(body).lstrip("\n") + app[e:]
    if includes:
        first = text.index("#include")
        eol = text.index("\n", first) + 1
        text = text[:eol] + "".join(f"#include {h}\n" for h in includes) + text[eol:]
    if text == app:
        sys.exit(f"make_corpus.py: {candidate.name} changes nothing")
    return head, text


def main():
    out = pathlib.Path(sys.argv[1])
    here = pathlib.Path(sys.argv[2]).resolve() if len(sys.argv) > 2 else HERE
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    candidates = [c for c in (here / "candidates").iterdir() if c.suffix in (".cu", ".hip")]
    for candidate in sorted(candidates):
        head, text = build(candidate, here)
        path = out / candidate.name
        path.write_text(text)
        rows.append("\t".join([candidate.stem, head["app"], head["kernel"], str(path), head.get("rtol", ""), head["what"]]))
    (out / "cases.tsv").write_text("\n".join(rows) + "\n")
    print(f"{len(rows)} corpus candidates in {out}")


if __name__ == "__main__":
    main()
