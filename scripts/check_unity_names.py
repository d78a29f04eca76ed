#!/usr/bin/env python3
"""Names a unity build would merge: scripts/dev.sh compiles each library under src/ in batches of its sources
(RPL_UNITY_BUILD, CMake's UNITY_BUILD), so two sources of one library that define the same name at file scope
(in an anonymous namespace, or `static`) end up in one translation unit. The same signature does not compile;
a different one quietly becomes an overload, and a call may pick the other file's function. Exit 1 naming
each such name and its files; give it a shared definition in a header or a name of its own.
Python standard library only; ctest `source.unity_names`."""
import glob
import os
import re
import sys

# One library per folder (src/CMakeLists.txt, rpl_add_layer); collectors/ also takes amd/ and nvidia/.
LIBRARIES = {
    "collectors": ["collectors", "collectors/amd", "collectors/nvidia"],
}
SKIP_DIRS = {"proto", "replay", "capture_injection", "replay_runner", "counter_injection", "trace_injection",
             "pc_sampling_injection", "ceilings_bench", "cuda_driver", "metrics_list", "nccl_profiler",
             "spill_convert"}

TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|R"(\w*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|^\s*#[^\n]*'
                   r'(?:\\\n[^\n]*)*', re.S | re.M)
TYPE_NAME = re.compile(r'\b(?:struct|class|union|enum(?:\s+class|\s+struct)?)\s+(\w+)\s*(?:final\s*)?(?::[^{;]*)?$')
USING_NAME = re.compile(r'\busing\s+(\w+)\s*=')
CALL_NAME = re.compile(r'(~?\w+)\s*(?:<[^()]*>)?\s*\($')


def code_of(text):
    """The text with comments, string and character literals and preprocessor lines blanked out."""
    return TOKEN.sub(lambda m: " " * 0 + ("\n" * m.group(0).count("\n")), text)


def declared_name(head):
    """The name a namespace-scope declaration `head` (its text up to '{', ';' or '=') defines, or None."""
    head = " ".join(head.split())
    head = re.sub(r'^template\s*<.*?>\s*(?=[A-Za-z_\[])', "", head)
    if not head or head.startswith(("namespace", "extern", "static_assert", "friend", "typedef")):
        return None
    m = USING_NAME.search(head) or TYPE_NAME.search(head)
    if m:
        return m.group(1)
    if head.startswith(("using", "enum", "struct", "class", "union")):
        return None
    depth, cut = 0, None
    for i, ch in enumerate(head):  # the first '(' outside template brackets: a function's parameter list
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif ch == "(" and depth == 0:
            cut = i
            break
    if cut is not None:
        m = CALL_NAME.search(head[:cut + 1])
        # Not a member defined out of its class (Class::name) nor an operator.
        if m and "operator" not in head[:cut] and not head[:m.start(1)].rstrip().endswith("::"):
            return m.group(1)
        return None
    m = re.search(r'(\w+)\s*(?:\[[^\]]*\])*\s*$', head)  # a variable: the last name before '=', '{' or ';'
    return m.group(1) if m and m.group(1) not in ("const", "constexpr", "inline", "static") else None


def file_scope_names(text):
    """Names defined at file scope: inside an anonymous namespace, or `static` at namespace scope."""
    code = code_of(text)
    names = set()
    scopes = []  # per open brace: "ns", "anon" or "other"
    head = ""
    i = 0
    while i < len(code):
        ch = code[i]
        at_namespace_scope = all(s in ("ns", "anon") for s in scopes)
        if ch == "{":
            stripped = " ".join(head.split())
            if at_namespace_scope and re.fullmatch(r'(inline\s+)?namespace', stripped):
                scopes.append("anon")
            elif at_namespace_scope and re.fullmatch(r'(inline\s+)?namespace\s+[\w:]+', stripped):
                scopes.append("ns")
            elif at_namespace_scope and stripped.startswith('extern "C"'):
                scopes.append("ns")
            else:
                if at_namespace_scope:
                    collect(names, scopes, stripped.split("=")[0])
                scopes.append("other")
            head = ""
        elif ch == "}":
            if scopes:
                scopes.pop()
            head = ""
        elif ch == ";":
            if at_namespace_scope:
                collect(names, scopes, head.split("=")[0] if "(" not in head.split("=")[0] else head)
            head = ""
        elif ch == "=" and at_namespace_scope and "(" not in head and "operator" not in head:
            collect(names, scopes, head)
            # skip to the end of the initializer (its braces are tracked by the loop as "other")
            head = "\0"
        else:
            if head != "\0":
                head += ch
        i += 1
    return names


def collect(names, scopes, head):
    head = head.replace("\0", "").strip()
    if not head:
        return
    local = "anon" in scopes or re.match(r'(?:\[\[[^\]]*\]\]\s*)?(?:template\s*<.*?>\s*)?static\b', " ".join(head.split()))
    if not local:
        return
    name = declared_name(re.sub(r'^(?:\[\[[^\]]*\]\]\s*)?static\s+', "", " ".join(head.split())))
    if name:
        names.add(name)


def libraries(root):
    src = os.path.join(root, "src")
    folders = {}
    for d, subdirs, files in os.walk(src):
        subdirs[:] = [s for s in subdirs if s not in SKIP_DIRS]
        rel = os.path.relpath(d, src)
        sources = sorted(os.path.join(d, f) for f in files if f.endswith(".cpp"))
        if rel == "." or not sources:
            continue
        lib = next((k for k, v in LIBRARIES.items() if rel in v), rel)
        folders.setdefault(lib, []).extend(sources)
    return folders


def clashes(root):
    out = []
    for lib, sources in sorted(libraries(root).items()):
        where = {}
        for path in sources:
            with open(path, encoding="utf-8", errors="replace") as f:
                for name in file_scope_names(f.read()):
                    where.setdefault(name, []).append(os.path.relpath(path, root))
        for name, files in sorted(where.items()):
            if len(files) > 1:
                out.append(f"{lib}: '{name}' at file scope in {', '.join(files)}")
    return out


if __name__ == "__main__":
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    found = clashes(root)
    for c in found:
        print(f"FAIL {c}: one unity batch could hold both; share one definition or rename", file=sys.stderr)
    sys.exit(1 if found else 0)
