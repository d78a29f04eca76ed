#!/usr/bin/env python3
"""The direct-include check: every `#include "..."` under src/ against the layer table of
docs/architecture.md (the rows between <!-- layer-table:begin --> and <!-- layer-table:end -->).

The build's include roots make an include against the flow fail to compile, but only for layers a target
does not reach at all; a layer reached through another one's PUBLIC link (cli through app to collectors)
would compile. This check reads the documented "may use" column and refuses any direct include of a layer
the including file's layer may not use, any include climbing out with "..", and any link in
src/**/CMakeLists.txt (rpl_add_layer EXPOSES/USES, target_link_libraries of rpl_* targets) to a layer the
table does not allow, to the umbrella `rpl`, or src/ as a whole as an include directory.

Usage: check_includes.py [--root DIR]   (exit 0: clean; 1: violations, one line each; 2: unreadable table)
Standard library only.
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ROW = re.compile(r'^\|\s*`([^`]+)`[^|]*\|\s*`src/([^`]+)/`\s*\|[^|]*\|\s*([^|]*)\|\s*$')
# The generated version header (support/version.hpp.in, configured into build/generated/rpl/).
ALIASES = {"rpl": "support"}


def read_table(doc_path):
    """{layer: (target, set of layers it may use)}, layer = its folder under src/ ("optimize/llm")."""
    with open(doc_path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"<!-- layer-table:begin -->(.*?)<!-- layer-table:end -->", text, re.S)
    if not m:
        raise ValueError(f"{doc_path}: no <!-- layer-table:begin --> ... <!-- layer-table:end --> block")
    table = {}
    for line in m.group(1).splitlines():
        row = ROW.match(line.strip())
        if not row:
            continue
        target, folder, uses = row.groups()
        uses = uses.strip()
        allowed = set() if uses in ("—", "-", "") else {u.strip() for u in uses.split(",")}
        table[folder] = (target, allowed)
    if not table:
        raise ValueError(f"{doc_path}: the layer table has no rows")
    for layer, (_, allowed) in table.items():
        unknown = allowed - set(table)
        if unknown:
            raise ValueError(f"{doc_path}: layer {layer} may use unknown layer(s) {', '.join(sorted(unknown))}")
    return table


def layer_of(path, table):
    """The layer of a path relative to src/ (or of an include spelled "<layer>/..."): longest folder prefix."""
    parts = path.split("/")
    if parts[0] in ALIASES and len(parts) > 1:
        return ALIASES[parts[0]]
    best = None
    for layer in table:
        lp = layer.split("/")
        if parts[: len(lp)] == lp and len(parts) > len(lp) and (best is None or len(lp) > len(best.split("/"))):
            best = layer
    return best


def check_sources(src, table):
    problems = []
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith((".cpp", ".hpp", ".h", ".cu", ".in")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            own = layer_of(rel, table)
            if own is None:
                problems.append(f"src/{rel}: in no layer of the table")
                continue
            allowed = table[own][1] | {own}
            with open(path, encoding="utf-8", errors="replace") as f:
                in_raw_string = False
                for number, line in enumerate(f, 1):
                    # Stub headers the optimizer writes out live in raw strings: not includes of this file.
                    if 'R"' in line and not in_raw_string:
                        in_raw_string = line.count('R"') > line.count(')"')
                        continue
                    if in_raw_string:
                        if ')"' in line:
                            in_raw_string = False
                        continue
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    if ".." in target.split("/"):
                        problems.append(f"src/{rel}:{number}: #include \"{target}\" climbs out with '..'; "
                                        "spell it \"<layer>/<file>\"")
                        continue
                    if "/" not in target:
                        continue  # generated files beside the source (perfetto_trace_subset.pb.h)
                    used = layer_of(target, table)
                    if used is None:
                        problems.append(f"src/{rel}:{number}: #include \"{target}\" is in no layer of the table")
                    elif used not in allowed:
                        may = ", ".join(sorted(table[own][1])) or "no other layer"
                        problems.append(f"src/{rel}:{number}: #include \"{target}\": {own} may not use {used} "
                                        f"(docs/architecture.md: {own} may use {may})")
    return problems


ADD_LAYER = re.compile(r"rpl_add_layer\(\s*([\w/]+)([^)]*)\)", re.S)
LINK = re.compile(r"target_link_libraries\(\s*([\w-]+)([^)]*)\)", re.S)
INCLUDE_DIRS = re.compile(r"target_include_directories\(\s*([\w-]+)([^)]*)\)", re.S)


def check_cmake(src, table):
    problems = []
    targets = {t: layer for layer, (t, _) in table.items()}
    for root, dirs, files in os.walk(src):
        dirs.sort()
        if "CMakeLists.txt" not in files:
            continue
        path = os.path.join(root, "CMakeLists.txt")
        rel = os.path.relpath(path, os.path.dirname(src)).replace(os.sep, "/")
        folder = os.path.relpath(root, src).replace(os.sep, "/")
        with open(path, encoding="utf-8") as f:
            text = re.sub(r"#[^\n]*", "", f.read())
        for m in ADD_LAYER.finditer(text):
            layer, args = m.group(1), m.group(2).split()
            if layer not in table:
                problems.append(f"{rel}: rpl_add_layer({layer}) is not a row of the layer table")
                continue
            used = [a for a in args if a not in ("APPLICATION", "EXPOSES", "USES")]
            for u in used:
                if u not in table[layer][1]:
                    problems.append(f"{rel}: rpl_add_layer({layer}) links {u}, which {layer} may not use")
        for m in LINK.finditer(text):
            target, args = m.group(1), m.group(2).split()
            own = targets.get(target)
            if own is None and folder != ".":
                own = layer_of(folder + "/x", table)
            for a in args:
                if a == "rpl":
                    problems.append(f"{rel}: {target} links the umbrella rpl (tests and benchmarks only)")
                elif a in targets and own is not None and targets[a] != own and targets[a] not in table[own][1]:
                    problems.append(f"{rel}: {target} links {a}, which {own} may not use")
        for m in INCLUDE_DIRS.finditer(text):
            if re.search(r"\$\{(PROJECT|CMAKE)_SOURCE_DIR\}/src\b(?!/)", m.group(2)):
                problems.append(f"{rel}: {m.group(1)} has src/ as a whole as an include directory")
    return problems


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
                    help="the source tree (holding docs/architecture.md and src/)")
    args = ap.parse_args(argv)
    doc = os.path.join(args.root, "docs", "architecture.md")
    src = os.path.join(args.root, "src")
    try:
        table = read_table(doc)
    except (OSError, ValueError) as e:
        print(f"check_includes: {e}", file=sys.stderr)
        return 2
    problems = check_sources(src, table) + check_cmake(src, table)
    for p in problems:
        print(p)
    if problems:
        print(f"check_includes: {len(problems)} include(s) or link(s) against docs/architecture.md's layer table",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
