"""Small read-only queries over a rocpd database (as our CUDA collector or rocprofv3 writes it), for the
GPU test suite and the benchmarks. Standard library only: the GPU machine has python3 but no extra packages
we can rely on besides its own."""
import json
import sqlite3


def connect(path):
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    return conn


def base_name(display_name):
    """'qk_scores(float const*, ...)' -> 'qk_scores'; 'void ns::k<int>(...)' -> 'ns::k<int>'."""
    name = display_name or ""
    depth = 0
    for i, ch in enumerate(name):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            name = name[:i]
            break
    if name.startswith("void "):
        name = name[5:]
    return name.strip()


def dispatches(conn):
    """Every kernel dispatch: name, start, end, stream, agent, correlation id, geometry."""
    rows = conn.execute(
        """SELECT K.id, K.dispatch_id, K.start, K.end, K.stream_id, K.queue_id, K.agent_id, K.tid,
                  K.grid_size_x, K.grid_size_y, K.grid_size_z,
                  K.workgroup_size_x, K.workgroup_size_y, K.workgroup_size_z,
                  K.group_segment_size, K.private_segment_size,
                  S.display_name, S.kernel_name, S.arch_vgpr_count, E.stack_id AS corr
           FROM rocpd_kernel_dispatch K
           JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid
           LEFT JOIN rocpd_event E ON E.id = K.event_id AND E.guid = K.guid
           ORDER BY K.start""").fetchall()
    out = []
    for r in rows:
        d = dict(r)
        d["name"] = base_name(r["display_name"])
        out.append(d)
    return out


def regions(conn):
    """Every API region with its correlation id and args {name: (value, extdata dict)}."""
    rows = conn.execute(
        """SELECT R.id, R.start, R.end, R.tid, S.string AS name, C.string AS category, E.stack_id AS corr, R.event_id
           FROM rocpd_region R
           JOIN rocpd_string S ON S.id = R.name_id AND S.guid = R.guid
           LEFT JOIN rocpd_event E ON E.id = R.event_id AND E.guid = R.guid
           LEFT JOIN rocpd_string C ON C.id = E.category_id AND C.guid = E.guid
           ORDER BY R.start""").fetchall()
    args = {}
    for a in conn.execute("SELECT event_id, name, value, extdata FROM rocpd_arg"):
        try:
            ext = json.loads(a["extdata"] or "{}")
        except ValueError:
            ext = {}
        args.setdefault(a["event_id"], {})[a["name"]] = (a["value"], ext)
    out = []
    for r in rows:
        d = dict(r)
        d["args"] = args.get(r["event_id"], {})
        out.append(d)
    return out


def copies(conn):
    rows = conn.execute(
        """SELECT M.start, M.end, M.size, M.stream_id, M.src_agent_id, M.dst_agent_id, S.string AS kind
           FROM rocpd_memory_copy M JOIN rocpd_string S ON S.id = M.name_id AND S.guid = M.guid""").fetchall()
    return [dict(r) for r in rows]


def agents(conn):
    out = []
    for r in conn.execute("SELECT id, type, name, product_name, extdata FROM rocpd_info_agent"):
        d = dict(r)
        try:
            d["extdata"] = json.loads(r["extdata"] or "{}")
        except ValueError:
            d["extdata"] = {}
        out.append(d)
    return out


def count_view(conn, view):
    try:
        return conn.execute(f"SELECT COUNT(*) FROM {view}").fetchone()[0]
    except sqlite3.Error:
        return None


def median(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        return float("nan")
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def parse_app_output(text):
    """RPL_EXPECT and RPL_RESULT lines printed by the testbed apps."""
    expect, results = {}, []
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "RPL_EXPECT":
            kv = dict(p.split("=", 1) for p in parts[1:] if "=" in p)
            expect[kv["kernel"]] = expect.get(kv["kernel"], 0) + int(kv["count"])
        elif parts[0] == "RPL_RESULT":
            results.append(dict(p.split("=", 1) for p in parts[1:] if "=" in p))
    return expect, results
