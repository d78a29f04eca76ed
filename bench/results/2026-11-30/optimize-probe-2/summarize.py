#!/usr/bin/env python3
"""summary.txt from cases.tsv and logs/NAME.txt (the gates driver's output per case)."""
import re, pathlib
root = pathlib.Path('/tmp/optprobe2')
notes = {
 'softmax_warp_shuffle__v_fwd_decl_after': 'forward-declaration blanking swallows the #include lines before the prototype (repro/fwd_decl_swallows_preceding_text)',
 'scan_template_helper_defaults__v_nested_namespace': 'C++17 nested namespace a::b { } not blanked (repro/nested_namespace)',
 'layernorm_two_pass_shfl__v_file_static_assert': 'file-scope static_assert is not a recognised addition (repro/file_scope_static_assert)',
 'softmax_cg_reduce': 'stubs only: namespace cg = cooperative_groups; at file scope (repro/cg_namespace_alias_stubs)',
 'softmax_cg_reduce__v_tabs': 'stubs only: same cause as softmax_cg_reduce (tabs themselves fine)',
 'layernorm_cg_float4': 'stubs only: file-scope cg namespace alias',
 'scan_cg_inclusive_scan': 'stubs only: file-scope cg namespace alias',
 'spmv_cg_subwarp': 'stubs only: file-scope cg namespace alias',
 'stencil_cg_tile_shfl': 'stubs only: file-scope cg namespace alias',
 'softmax_math_constants_exp2': 'binary_signature counts nvcc-internal WEAK $__internal_N_$__cuda_*_slowpath subroutines as exported functions (repro/internal_slowpath_functions)',
 'stencil_weights__v_static_constexpr_local_array': 'binary_structure refuses the .nv.global.init copy of a kernel-local static constexpr array (repro/static_constexpr_local_array)',
 'softmax_online_float4__v_free_operator_new_type': 'operator+ of a new struct is not a plain-identifier helper (repro/operator_overload_helpers)',
 'layernorm_cg_float4__v_float4_operators': 'helper_math-style float4 operators: same cause (repro/operator_overload_helpers)',
 'transpose_smem_padded__v_alias_template_var_template': 'constexpr variable template is not a recognised constant (repro/constexpr_variable_template)',
 'hostile_layernorm_syncthreads_macro_fwd_decl': 'refused macro (#define __syncthreads()) blanked with the forward declaration after it (repro/fwd_decl_swallows_refused_macro)',
 'hostile_softmax_host_macro_fwd_decl': 'host code changed by a macro blanked with the forward declaration after it (repro/fwd_decl_swallows_refused_macro)',
 'hostile_hist_hd_helper_const_init': 'const with a dynamic initialiser runs a new __host__ __device__ helper\'s host branch at start-up (repro/const_dynamic_initialiser)',
 'hostile_hist_const_runtime_call': 'toolkit mode: const initialised by a CUDA runtime call (stubs reject it only because the parse fails) (repro/const_dynamic_initialiser)',
 'hostile_spmv_atomic_ref_input': 'stubs only: kernel unparsed, atomics check deferred to the binary gates, which have none (documented deferral)',
 'hostile_softmax_macro_swallowed_by_fwd_decl': 'rejected only because the same blanking also swallowed the app\'s #include lines; see hostile_layernorm_syncthreads_macro_fwd_decl',
 'hostile_layernorm_static_in_type_member': 'static gate misses a static local in a new type\'s member function; binary gate catches it',
 'hostile_stencil_chrono_globaltimer': 'static gates pass (timer inside libcu++), binary gate catches %globaltimer',
 'scan_warp_shfl_up__v_constexpr_host_fn': 'debatable: the docs admit device helpers only; a host function can run host code',
 'transpose_smem_swizzle__v_include_guard_block': 'debatable: #ifndef/#endif guard around new helpers is not among the listed additions',
 'layernorm_restrict_params': 'by the specification: the signature gate compares __restrict__',
 'stencil_weights__v_device_constexpr_array': 'by the specification: new file-scope __device__ data',
}
def parse(log):
    t = log.read_text() if log.exists() else ''
    st = re.findall(r'^STATIC\[(\w+)/(\w+)\] (PASS|FAIL) gate=(\S+) reason=(.*)$', t, re.M)
    b = re.search(r'^BINARY (PASS|FAIL) gate=(\S+) reason=(.*)$', t, re.M)
    return st, b
lines, counts = [], {}
for row in (root / 'cases.tsv').read_text().splitlines():
    name, app, kernel, expect, what = row.split('\t')
    st, b = parse(root / 'logs' / f'{name}.txt')
    (_, tc, tp, tg, tr), (_, sc, sp, sg, sr) = st
    bp, bg, br = b.groups()
    tk = tp == 'PASS' and bp == 'PASS'; sb = sp == 'PASS' and bp == 'PASS'
    if tk and sb: got = 'ADMITTED'
    else:
        if tp == 'FAIL': g, r, m = tg, tr, 'static/toolkit'
        elif sp == 'FAIL': g, r, m = sg, sr, 'static/stubs'
        else: g, r, m = bg, br, 'binary'
        got = f'REJECTED [{m}] {g}: {r[:160]}'
    if expect == 'admit':
        j = 'ok' if tk and sb else ('WRONG-REJECT' if not tk else 'WRONG-REJECT(stubs only)')
    elif expect == 'reject':
        j = 'ok' if not tk and not sb else ('WRONG-ADMIT' if tk else 'WRONG-ADMIT(stubs only)')
    else: j = 'debatable'
    counts[j] = counts.get(j, 0) + 1
    modes = f"toolkit={'pass' if tp == 'PASS' else 'FAIL'} stubs={'pass' if sp == 'PASS' else 'FAIL'} binary={'pass' if bp == 'PASS' else 'FAIL'}"
    lines.append(f"{name} | {app} | {kernel} | expected={expect} | got={got} | {modes} | verdict={j}" + (f" | note: {notes[name]}" if name in notes else ''))
adm = sum(1 for l in lines if '| got=ADMITTED' in l)
head = [f"# optimize gate probe, round 2: {len(lines)} cases ({adm} admitted, {len(lines) - adm} rejected: admitted = static gates pass with the toolkit's headers AND with the stubs, and the binary gates pass)",
        "# libraries: /work/wt-struct/build (librpl_optimize.a of 22:59, worktree HEAD b8b9de9), driver gates.cpp; nvcc 13.0 -cubin -arch=sm_90 -O3",
        "# verdict counts: " + ', '.join(f'{k} {v}' for k, v in sorted(counts.items())),
        "# columns: name | app | kernel | expected | got (first failing mode, gate: reason) | per mode | verdict | note"]
(root / 'summary.txt').write_text('\n'.join(head + lines) + '\n')
print('\n'.join(head))
