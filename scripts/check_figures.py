#!/usr/bin/env python3
"""Check every published figure against its raw file (docs/figures.md says how to register one).

The registry is bench/figures/*.jsonl: one JSON object a line (lines starting with '#' are comments). An entry
names a document, a context (a literal piece of one line of it, unique in the document), the figure as written
inside that context, the raw file, and a locator that picks one value out of the raw file:

  {"doc": "bench/RESULTS.md", "context": "| 7.90 | 1.94, 1.93", "figure": "7.90",
   "raw": "bench/results/2026-11-25/analyze/analyze_scaling.txt", "re": "^n=1000000 median_wall_s=(\\S+)"}

Locators: "re" (a regular expression matching exactly one line of the raw file; group 1 is the value),
"json" (a path into a JSON or JSON Lines file: keys, [N] indices, [key=value] filters), "csv" ({"row": N or
{"column": "value", ...}, "col": "name"}); "member" reads one file inside a raw tar archive (.tar.gz).
"values" + "expr" derive a figure from several located values.
The value is multiplied by "scale" (default 1) and rounded half-up to the figure's written decimals ("round":
"half-even" or "exact" change that). An entry with "exempt": "reason" instead of a locator says that the
numbers inside its context are not measured figures (a threshold, a design constant).

It fails when a registered figure differs from its raw value, when its raw file is missing, when its context is
not (or not uniquely) in its document, and when a figure in a checked document (bench/RESULTS.md, README.md,
docs/*.md, fuzz/README.md) has no entry. Only python3's standard library.
"""
import argparse
import ast
import csv
import decimal
import glob
import io
import json
import os
import re
import sys
import tarfile
from decimal import Decimal

decimal.getcontext().prec = 40

# Documents whose every figure must be registered (bench/figures/pending.txt lists the ones not yet complete).
CHECKED_DOCUMENTS = ["bench/RESULTS.md", "README.md", "docs/*.md", "fuzz/README.md"]

# A number as written: digits with optional thousands commas and decimals. Its sign, when it has one, is part of
# the figure ("+32.0", "-0.4"); a hyphen between two numbers is a range ("244-250") and belongs to neither.
NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])|\d+(?:\.\d+)?")
EXPONENT = re.compile(r"[eE][+\-]?\d+(?![\w.])")
GLUED = re.compile(r"[\w.,/=:@#§\\]")  # a number right after one of these is part of a name, path, option or version
SIGNS = "+-−"
VERSION_WORDS = re.compile(
    r"\b(?:v|version|versions|CUDA|CUPTI|ROCm|HIP|driver|drivers|torch|PyTorch|Python|python3|GCC|gcc|clang|"
    r"LLVM|Debian|Ubuntu|SQLite|CMake|Perfetto|libFuzzer|capability|NCCL|cuDNN|Triton|vLLM|Ollama|"
    r"schema_version|draft|section|sections|chapter|§|Linux|rocpd|rocprofv3)[ ]?(?:(?:<=|>=|<|>|≤|≥)[ ]?)?$",
    re.IGNORECASE)  # "CUDA 13.0", "CUDA <= 13.2", "NCCL ≥ 2.19"
HEADING_NUMBER = re.compile(r"^#+\s+(\d+(?:\.\d+)*)")


# The keys an entry may have (docs/figures.md); "note" is free text for the reader.
LOCATOR_KEYS = {"raw", "member", "re", "occurrence", "json", "csv"}
ENTRY_KEYS = LOCATOR_KEYS | {"doc", "context", "figure", "at", "values", "expr", "scale", "abs", "round", "exempt",
                             "note"}


class Failure(Exception):
    pass


def mask_markup(text):
    """The text with inline code spans (they may cross lines), link targets, URLs and HTML comments blanked,
    newlines and lengths kept, so columns still match the original."""
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))
    text = re.sub(r"`[^`]*`", blank, text)
    text = re.sub(r"\]\([^)]*\)", blank, text)
    text = re.sub(r"<!--.*?-->", blank, text, flags=re.S)
    return re.sub(r"https?://\S+", blank, text)


def figure_tokens(line, masked=None):
    """(start, end, text) of each number on a markdown line outside inline code, link targets, URLs, HTML
    comments, a heading's section number, versions ("CUDA 13.0", "2.11.0") and names ("H100", "sm_90")."""
    if masked is None:
        masked = mask_markup(line)
    heading = HEADING_NUMBER.match(masked)
    if heading:
        masked = masked[:heading.start(1)] + " " * len(heading.group(1)) + masked[heading.end(1):]
    out = []
    for m in NUMBER.finditer(masked):
        start, end = m.start(), m.end()
        before = masked[start - 1] if start > 0 else " "
        if GLUED.match(before) or masked[end:end + 2].startswith(".") and masked[end + 1:end + 2].isdigit():
            continue
        if before in SIGNS:
            twice = masked[start - 2] if start > 1 else " "
            if twice.isalpha() or twice in "_.":
                continue  # "Llama-3.1", "fp-1.5": part of a name
            if not twice.isdigit():
                start -= 1  # a sign, not a range
        if VERSION_WORDS.search(masked[:start]):
            continue
        exponent = EXPONENT.match(masked, end)
        if exponent:
            end = exponent.end()
        out.append((start, end, line[start:end]))
    return out


def is_decimal_figure(text):
    return "." in text


def document_lines(path):
    """(line, masked line) pairs of a markdown document; fenced code blocks are blank in both (their numbers are
    commands and outputs)."""
    lines = []
    fenced = False
    with open(path, encoding="utf-8") as f:
        for line in f.read().split("\n"):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                lines.append("")
                continue
            lines.append("" if fenced else line)
    masked = mask_markup("\n".join(lines)).split("\n")
    return list(zip(lines, masked))


def to_decimal(text, what):
    cleaned = str(text).strip().replace(",", "").replace("−", "-").lstrip("+")
    try:
        return Decimal(cleaned)
    except decimal.InvalidOperation:
        raise Failure(f"{what}: {text!r} is not a number")


def written_decimals(figure):
    mantissa = re.split(r"[eE]", figure)[0]
    return len(mantissa.split(".")[1]) if "." in mantissa else 0


# ---- locators -------------------------------------------------------------------------------------------------

def parse_json_path(path):
    if isinstance(path, list):
        return path
    steps = []
    for m in re.finditer(r"\[([^\]]*)\]|([^.\[\]]+)", path):
        if m.group(1) is not None:
            inner = m.group(1)
            if re.fullmatch(r"-?\d+", inner):
                steps.append(int(inner))
            elif "=" in inner:
                key, value = inner.split("=", 1)
                steps.append({key: value})
            else:
                steps.append(inner)
        else:
            steps.append(m.group(2))
    return steps


def locate_json(text, raw, path):
    if raw.endswith(".jsonl"):
        node = [json.loads(l, parse_float=Decimal) for l in text.splitlines() if l.strip()]
    else:
        node = json.loads(text, parse_float=Decimal)
    for step in parse_json_path(path):
        if isinstance(step, dict):
            if not isinstance(node, list):
                raise Failure(f"{raw}: filter {step} applied to a non-list")
            hits = [n for n in node if isinstance(n, dict) and all(str(n.get(k)) == v for k, v in step.items())]
            if len(hits) != 1:
                raise Failure(f"{raw}: filter {step} matches {len(hits)} elements, not exactly one")
            node = hits[0]
        elif isinstance(node, list):
            if not isinstance(step, int) or not -len(node) <= step < len(node):
                raise Failure(f"{raw}: no element {step!r} in a list of {len(node)}")
            node = node[step]
        elif isinstance(node, dict):
            if str(step) not in node:
                raise Failure(f"{raw}: no key {step!r} (keys: {', '.join(list(node)[:12])})")
            node = node[str(step)]
        else:
            raise Failure(f"{raw}: path step {step!r} under a scalar")
    if isinstance(node, (dict, list)) or node is None or isinstance(node, bool):
        raise Failure(f"{raw}: json path {path!r} ends at {type(node).__name__}, not a number")
    return node


def locate_csv(text, raw, spec):
    delimiter = spec.get("delimiter", "\t" if raw.endswith(".tsv") else ",")
    rows = list(csv.DictReader(io.StringIO(text), delimiter=delimiter))
    row = spec["row"]
    if isinstance(row, int):
        if not 0 <= row < len(rows):
            raise Failure(f"{raw}: no data row {row} (has {len(rows)})")
        chosen = rows[row]
    else:
        hits = [r for r in rows if all(r.get(k) == v for k, v in row.items())]
        if len(hits) != 1:
            raise Failure(f"{raw}: row {row} matches {len(hits)} rows, not exactly one")
        chosen = hits[0]
    if spec["col"] not in chosen:
        raise Failure(f"{raw}: no column {spec['col']!r}")
    return chosen[spec["col"]]


def locate_re(text, raw, pattern, occurrence=None):
    regex = re.compile(pattern)
    hits = [m for m in (regex.search(l) for l in text.splitlines()) if m]
    if occurrence is None:
        if len(hits) != 1:
            raise Failure(f"{raw}: /{pattern}/ matches {len(hits)} lines, not exactly one")
        m = hits[0]
    else:
        if not 1 <= occurrence <= len(hits):
            raise Failure(f"{raw}: /{pattern}/ has no occurrence {occurrence} ({len(hits)} lines match)")
        m = hits[occurrence - 1]
    if regex.groups < 1:
        raise Failure(f"{raw}: /{pattern}/ has no capture group")
    return m.group(1)


def read_raw(root, raw, member):
    """The text of a raw file, or of one file inside a raw tar archive ("member": its path in the archive; a list
    of paths reaches into an archive inside the archive)."""
    path = os.path.join(root, raw)
    if not os.path.isfile(path):
        raise Failure(f"raw file {raw} is missing")
    if not member:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    data = None
    for name in [member] if isinstance(member, str) else member:
        try:
            with (tarfile.open(path) if data is None else tarfile.open(fileobj=io.BytesIO(data))) as archive:
                f = archive.extractfile(name)
                if f is None:
                    raise Failure(f"{raw}: {name} is not a regular file in the archive")
                data = f.read()
        except KeyError:
            raise Failure(f"{raw}: no member {name} in the archive")
        except tarfile.TarError as e:
            raise Failure(f"{raw}: not a readable tar archive before {name} ({e})")
    return data.decode("utf-8", errors="replace")


def locate(root, spec, default_raw, cache):
    raw = spec.get("raw", default_raw)
    if not raw:
        raise Failure("no raw file named")
    member = spec.get("member")
    members = tuple([member] if isinstance(member, str) else member or [])
    if (raw, members) not in cache:
        cache[(raw, members)] = read_raw(root, raw, members)
    text = cache[(raw, members)]
    raw = ":".join((raw,) + members)  # messages name the file inside the archive
    kinds = [k for k in ("re", "json", "csv") if k in spec]
    if len(kinds) != 1:
        raise Failure(f"needs exactly one locator of re/json/csv, has {kinds or 'none'}")
    if "re" in spec:
        value = locate_re(text, raw, spec["re"], spec.get("occurrence"))
    elif "json" in spec:
        value = locate_json(text, raw, spec["json"])
    else:
        value = locate_csv(text, raw, spec["csv"])
    return to_decimal(value, raw)


def evaluate(expr, names):
    functions = {"min": min, "max": max, "abs": abs}

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return Decimal(str(node.value))
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                   ast.Div: lambda: a / b}
            if type(node.op) in ops:
                return ops[type(node.op)]()
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions:
            return functions[node.func.id](*[ev(a) for a in node.args])
        raise Failure(f"expr {expr!r}: {ast.dump(node)[:60]} is not allowed (+ - * / min max abs, names)")
    return ev(ast.parse(expr, mode="eval"))


def raw_value(root, entry, cache):
    if "expr" in entry:
        inherited = {k: entry[k] for k in ("raw", "member") if k in entry}
        names = {name: locate(root, spec if "raw" in spec else {**inherited, **spec}, entry.get("raw"), cache)
                 for name, spec in entry["values"].items()}
        value = evaluate(entry["expr"], names)
    else:
        value = locate(root, entry, entry.get("raw"), cache)
    value *= to_decimal(entry.get("scale", "1"), "scale")
    if entry.get("abs"):
        value = abs(value)
    return value


def describe_raw(entry):
    member = entry.get("member") or []
    return ":".join([entry["raw"]] + ([member] if isinstance(member, str) else member)) if "raw" in entry \
        else "values"


def compare(figure, value, mode):
    written = to_decimal(figure, "figure")
    if mode == "exact":
        return written == value, value
    rounding = {"half-up": decimal.ROUND_HALF_UP, "half-even": decimal.ROUND_HALF_EVEN}.get(mode)
    if rounding is None:
        raise Failure(f"unknown round mode {mode!r}")
    if "e" in figure.lower():
        exponent = Decimal(1).scaleb(written.adjusted() - written_decimals(figure))
    else:
        exponent = Decimal(1).scaleb(-written_decimals(figure))
    rounded = value.quantize(exponent, rounding=rounding)
    return rounded == written, rounded


# ---- registry and documents -----------------------------------------------------------------------------------

def load_registry(root):
    entries = []
    for path in sorted(glob.glob(os.path.join(root, "bench/figures/*.jsonl"))):
        rel = os.path.relpath(path, root)
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError as e:
                    raise SystemExit(f"{rel}:{n}: not JSON: {e}")
                entry["_where"] = f"{rel}:{n}"
                entries.append(entry)
    return entries


def checked_documents(root):
    docs = []
    for pattern in CHECKED_DOCUMENTS:
        docs += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, pattern)))
    return docs


def pending_documents(root):
    path = os.path.join(root, "bench/figures/pending.txt")
    if not os.path.exists(path):
        return set()
    with open(path, encoding="utf-8") as f:
        return {l.split("#")[0].strip() for l in f if l.split("#")[0].strip()}


def place(entry, lines):
    """(line index, start column of the figure) of the entry in its document, or raise."""
    context = entry["context"]
    spots = [(i, m.start()) for i, (line, _) in enumerate(lines) for m in re.finditer(re.escape(context), line)]
    if len(spots) != 1:
        raise Failure(f"context {context!r} found {len(spots)} times in {entry['doc']}, not exactly once")
    i, col = spots[0]
    return i, col


def check(root, only_docs=None, list_missing=False):
    failures, checked, exempted = [], 0, 0
    cache, doc_cache = {}, {}
    covered = {}  # doc -> set of (line index, figure start column)
    for entry in load_registry(root):
        where = entry["_where"]
        try:
            for key in ("doc", "context"):
                if key not in entry:
                    raise Failure(f"missing key {key!r}")
            unknown = set(entry) - ENTRY_KEYS - {"_where"}
            unknown |= {k for spec in entry.get("values", {}).values() for k in set(spec) - LOCATOR_KEYS}
            if unknown:
                raise Failure(f"unknown key(s) {', '.join(sorted(unknown))} (a misspelt key would be ignored)")
            doc = entry["doc"]
            if doc not in doc_cache:
                if not os.path.isfile(os.path.join(root, doc)):
                    raise Failure(f"document {doc} is missing")
                doc_cache[doc] = document_lines(os.path.join(root, doc))
            lines = doc_cache[doc]
            i, col = place(entry, lines)
            tokens = [t for t in figure_tokens(*lines[i]) if col <= t[0] and t[1] <= col + len(entry["context"])]
            if "exempt" in entry:
                if not entry["exempt"].strip():
                    raise Failure("an exemption needs a reason")
                covered.setdefault(doc, set()).update((i, t[0]) for t in tokens)
                exempted += len(tokens)
                continue
            figure = entry.get("figure")
            if figure is None:
                raise Failure("missing key 'figure' (or 'exempt')")
            mine = [t for t in tokens if t[2] == figure]
            if "at" in entry and 0 <= entry["at"] < len(mine):
                mine = [mine[entry["at"]]]  # the same number twice in one context ("163.3 | 163.3"): which one
            if len(mine) != 1:
                raise Failure(f"figure {figure!r} appears {len(mine)} times as a number in context "
                              f"{entry['context']!r}, not exactly once")
            covered.setdefault(doc, set()).add((i, mine[0][0]))
            value = raw_value(root, entry, cache)
            ok, shown = compare(figure, value, entry.get("round", "half-up"))
            checked += 1
            if not ok:
                raise Failure(f"{doc}:{i + 1}: figure {figure} but the raw value {value} gives {shown}"
                              f" ({describe_raw(entry)})")
        except Failure as e:
            failures.append(f"{where}: {e}")
        except (KeyError, TypeError, ValueError, decimal.InvalidOperation) as e:
            failures.append(f"{where}: malformed entry: {e!r}")

    pending = pending_documents(root)
    missing_total, pending_missing = 0, 0
    for doc in checked_documents(root):
        if only_docs and doc not in only_docs:
            continue
        lines = doc_cache.get(doc) or document_lines(os.path.join(root, doc))
        for i, (line, masked) in enumerate(lines):
            for start, _, text in figure_tokens(line, masked):
                if not is_decimal_figure(text) or (i, start) in covered.get(doc, set()):
                    continue
                if doc in pending:
                    pending_missing += 1
                    if list_missing:
                        print(f"{doc}:{i + 1}:{start + 1}: {text}\t{line.strip()}")
                    continue
                missing_total += 1
                failures.append(f"{doc}:{i + 1}: figure {text} has no entry in bench/figures/ "
                                f"(line: {line.strip()[:100]})")
    return failures, checked, exempted, pending_missing, pending


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--list-unregistered", action="store_true",
                        help="print the unregistered figures of pending documents too (doc:line:col: figure)")
    parser.add_argument("docs", nargs="*", help="only these documents for the coverage check")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    failures, checked, exempted, pending_missing, pending = check(root, set(args.docs) or None,
                                                                 args.list_unregistered)
    for f in failures:
        print(f"FAIL {f}", file=sys.stderr)
    print(f"figures: {checked} checked against their raw files, {exempted} exempted, "
          f"{len(failures)} failures; {len(pending)} documents pending with {pending_missing} unregistered "
          f"figures", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
