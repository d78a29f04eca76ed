#!/usr/bin/env python3
"""Writes the instantiation files, the registry and the autotune space files of the measured spaces.

Each space is given twice on purpose: as restriction strings in rocm-perf's --space format (what the tuner
reads) and as a Python predicate (what decides which kernels get compiled). The benchmark checks that the
tuner enumerates exactly the configurations listed here.
"""
import argparse
import itertools
import json
import os

CONV_F = 11  # must match kConvFilter in kernels.cuh

SPACES = {
    "gemm": {
        "kernel": "sgemm",
        "parameters": {
            "BM": [16, 32, 64, 128, 256],
            "BN": [16, 32, 64, 128, 256],
            "BK": [8, 16, 32],
            "TM": [1, 2, 4, 8],
            "TN": [1, 2, 4, 8],
            "VEC": [1, 2, 4],
        },
        "restrictions": [
            "BM % TM == 0 && BN % TN == 0",
            "(BM/TM)*(BN/TN) >= 32 && (BM/TM)*(BN/TN) <= 1024",
            "(BM*BK + BK*BN)*4 <= 49152",
            "BK % VEC == 0 && BN % VEC == 0",
        ],
        "predicate": lambda c: (c["BM"] % c["TM"] == 0 and c["BN"] % c["TN"] == 0
                                and 32 <= (c["BM"] // c["TM"]) * (c["BN"] // c["TN"]) <= 1024
                                and (c["BM"] * c["BK"] + c["BK"] * c["BN"]) * 4 <= 49152
                                and c["BK"] % c["VEC"] == 0 and c["BN"] % c["VEC"] == 0),
    },
    "conv": {
        "kernel": "conv2d",
        "parameters": {
            "BX": [16, 32, 48, 64, 96, 128],
            "BY": [1, 2, 4, 8, 16, 32],
            "TX": [1, 2, 3, 4, 6, 8],
            "TY": [1, 2, 3, 4, 6, 8],
            "PAD": [0, 1],
            "UNROLL": [0, 1],
        },
        "restrictions": [
            "BX*BY >= 64 && BX*BY <= 1024",
            f"(BY*TY + {CONV_F - 1})*(BX*TX + {CONV_F - 1} + PAD)*4 <= 49152",
            "UNROLL == 0 || TX*TY <= 16",
        ],
        "predicate": lambda c: (64 <= c["BX"] * c["BY"] <= 1024
                                and (c["BY"] * c["TY"] + CONV_F - 1) * (c["BX"] * c["TX"] + CONV_F - 1 + c["PAD"]) * 4 <= 49152
                                and (c["UNROLL"] == 0 or c["TX"] * c["TY"] <= 16)),
    },
}


def configs(space):
    names = list(space["parameters"])
    for values in itertools.product(*space["parameters"].values()):
        c = dict(zip(names, values))
        if space["predicate"](c):
            yield c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, help="folder for the generated sources")
    ap.add_argument("--per-file", type=int, default=24, help="instantiations per .cu file")
    ap.add_argument("--limit", type=int, default=0, help="only the first N configurations per space (testing)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, space in SPACES.items():
        registry = ['#include "kernels.cuh"', "#include <string>", "#include <vector>", ""]
        calls = []
        cs = list(configs(space))
        if args.limit:
            cs = cs[: args.limit]
        with open(os.path.join(args.out, f"{name}.space.json"), "w") as f:
            json.dump({"parameters": space["parameters"], "restrictions": space["restrictions"]}, f, indent=1)
        kernel = space["kernel"]
        chunks = [cs[i:i + args.per_file] for i in range(0, len(cs), args.per_file)]
        for n, chunk in enumerate(chunks):
            fn = f"register_{name}_{n}"
            lines = ['#include "kernels.cuh"', "#include <vector>", "",
                     f"void {fn}(std::vector<KernelEntry>& table) {{"]
            for c in chunk:
                t = ", ".join(str(v) for v in c.values())
                lines.append(f"  table.push_back({{{{{t}}}, &launch_{kernel}<{t}>, &attributes_{kernel}<{t}>}});")
            lines.append("}")
            with open(os.path.join(args.out, f"{name}_{n:03d}.cu"), "w") as f:
                f.write("\n".join(lines) + "\n")
            registry.append(f"void {fn}(std::vector<KernelEntry>&);")
            calls.append((name, fn))
        print(f"{name}: {len(cs)} configurations in {len(chunks)} files")
        registry += ["", "std::vector<KernelEntry> kernel_table(const std::string& space) {",
                     "  std::vector<KernelEntry> table;"]
        for space_name, fn in calls:
            registry.append(f'  if (space == "{space_name}") {fn}(table);')
        registry += ["  return table;", "}"]
        with open(os.path.join(args.out, f"registry_{name}.cu"), "w") as f:
            f.write("\n".join(registry) + "\n")
    with open(os.path.join(args.out, "params.json"), "w") as f:
        json.dump({n: list(s["parameters"]) for n, s in SPACES.items()}, f)


if __name__ == "__main__":
    main()
