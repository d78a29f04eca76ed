#!/usr/bin/env python3
"""TEST DOUBLE: not AMD's madengine. A stand-in with the documented command-line form of the guide

    madengine run --tags TAG --additional-context-file FILE
    madengine run --manifest-file build_manifest.json --additional-context-file FILE   (the multi-node form)
    madengine run --tags TAG --additional-context '{"tools": [...]}'

that runs a model's command under the context's profiling tools the way madengine's profiling guide describes:
each tool's definition comes from tools.json (its "cmd" and "env_vars" can be replaced by the context's entry),
its pre-scripts run, then its command with the model's command appended (the tool's trailing `--` separates
them), then its post-scripts with their args. madengine itself (Docker images, model repositories) is not
involved: the "model" is FAKE_MADENGINE_MODEL.

Distributed contexts, as the guide's configurations write them:
  "distributed": {"launcher": "torchrun", "nproc_per_node": N}            one command; its N worker processes are
                                                                          modelled by FAKE_ROCPROFV3_PROCESSES=N
                                                                          for the rocprofv3 stand-in
  "distributed": {..., "nnodes": M} with "slurm": {...}                   one command per node, one after another,
                                                                          as SLURM ranks (SLURM_PROCID, SLURM_NTASKS,
                                                                          SLURM_NODEID); post-scripts run once, after
                                                                          the last rank

Environment:
  FAKE_MADENGINE_TOOLS     the tools.json (required)
  FAKE_MADENGINE_SCRIPTS   folder with the tools' scripts: a script "scripts/common/tools/rocm-perf/X" is X in it
                           (required when a tool has scripts)
  FAKE_MADENGINE_MODEL     the model's command (default /bin/true)
  FAKE_MADENGINE_LOG       append each command run to this file

Exit status: 0; 2 for a bad command line or context (the message names the file, tool or key); otherwise the
status of the first step that failed (the step is named on stderr).
"""
import json
import os
import shlex
import subprocess
import sys


def fail(message, status=2):
    print(f"madengine (stand-in): {message}", file=sys.stderr)
    sys.exit(status)


def parse_args(argv):
    if not argv or argv[0] != "run":
        fail("usage: madengine run (--tags TAG | --manifest-file FILE) "
             "(--additional-context-file FILE | --additional-context JSON)")
    opts = {}
    i = 1
    while i < len(argv):
        key = argv[i]
        if key not in ("--tags", "--manifest-file", "--additional-context-file", "--additional-context"):
            fail(f"unknown option {key}")
        if i + 1 >= len(argv):
            fail(f"{key} needs a value")
        opts[key] = argv[i + 1]
        i += 2
    if "--tags" not in opts and "--manifest-file" not in opts:
        fail("--tags or --manifest-file is required")
    if ("--additional-context-file" in opts) == ("--additional-context" in opts):
        fail("give one of --additional-context-file and --additional-context")
    return opts


def load_json(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        fail(f"{what} {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        fail(f"{what} {path} is not JSON: {e}")


def resolve_tools(context, tools):
    if not isinstance(context.get("tools"), list) or not context["tools"]:
        fail("the context has no \"tools\" list")
    out = []
    for entry in context["tools"]:
        name = entry.get("name") if isinstance(entry, dict) else None
        if name not in tools:
            fail(f"tool '{name}' is not defined in {os.environ['FAKE_MADENGINE_TOOLS']}")
        tool = dict(tools[name])
        for key in ("cmd", "env_vars"):
            if key in entry:
                tool[key] = entry[key]
        tool["name"] = name
        out.append(tool)
    return out


def script_path(path):
    folder = os.environ.get("FAKE_MADENGINE_SCRIPTS")
    if not folder:
        fail("FAKE_MADENGINE_SCRIPTS is not set")
    local = os.path.join(folder, os.path.basename(path))
    if not os.path.isfile(local):
        fail(f"script {path} not found (looked for {local})")
    return local


def run(command, env, step):
    if os.environ.get("FAKE_MADENGINE_LOG"):
        with open(os.environ["FAKE_MADENGINE_LOG"], "a") as log:
            log.write(command + "\n")
    status = subprocess.run(["bash", "-c", command], env=env).returncode
    if status != 0:
        print(f"madengine (stand-in): {step} failed with status {status}: {command}", file=sys.stderr)
        sys.exit(status)


def main():
    opts = parse_args(sys.argv[1:])
    if "--manifest-file" in opts:
        load_json(opts["--manifest-file"], "manifest")
    if "--additional-context-file" in opts:
        context = load_json(opts["--additional-context-file"], "context file")
    else:
        try:
            context = json.loads(opts["--additional-context"])
        except json.JSONDecodeError as e:
            fail(f"--additional-context is not JSON: {e}")
    if "FAKE_MADENGINE_TOOLS" not in os.environ:
        fail("FAKE_MADENGINE_TOOLS is not set")
    tools = load_json(os.environ["FAKE_MADENGINE_TOOLS"], "tools.json").get("tools", {})
    model = os.environ.get("FAKE_MADENGINE_MODEL", "/bin/true")
    distributed = context.get("distributed", {})
    nodes = int(distributed.get("nnodes", 1))
    if nodes > 1 and "slurm" not in context:
        fail("\"distributed\" has nnodes > 1 but the context has no \"slurm\" section")

    for tool in resolve_tools(context, tools):
        env = dict(os.environ)
        env.update({k: str(v) for k, v in tool.get("env_vars", {}).items()})
        if distributed.get("launcher") == "torchrun":
            env["FAKE_ROCPROFV3_PROCESSES"] = str(distributed.get("nproc_per_node", 1))
        for pre in tool.get("pre_scripts", []):
            run(f"bash {shlex.quote(script_path(pre['path']))} {pre.get('args', '')}", env, f"{tool['name']} pre-script")
        command = f"{tool['cmd']} {model}"
        if nodes > 1:
            for rank in range(nodes):
                rank_env = dict(env, SLURM_PROCID=str(rank), SLURM_NTASKS=str(nodes), SLURM_NODEID=str(rank))
                run(command, rank_env, f"{tool['name']} on rank {rank}")
        else:
            run(command, env, tool["name"])
        for post in tool.get("post_scripts", []):
            run(f"bash {shlex.quote(script_path(post['path']))} {post.get('args', '')}", env,
                f"{tool['name']} post-script")


if __name__ == "__main__":
    main()
