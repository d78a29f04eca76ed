#!/usr/bin/env python3
"""summary.txt from cases.tsv and logs/NAME.txt (the gates driver's output per case)."""
import re, pathlib
root = pathlib.Path('/tmp/optprobe3')
notes = {'sgemm_template_explicit_inst': 'explicit instantiation of a new helper template is not part of the addition (repro/explicit_instantiation)',
 'conv_template_explicit_inst': 'explicit instantiation (repro/explicit_instantiation)',
 'gemv_template_unroll_accum': 'explicit instantiation (repro/explicit_instantiation)',
 'hgemm_wmma_template_launch_bounds': 'explicit instantiation (repro/explicit_instantiation)',
 'count_ballot_popc__v_runtime_api_include': 'cuda_runtime_api.h / device_atomic_functions.h not in is_toolkit_header() (repro/toolkit_headers_not_listed)',
 'sgemm_lambda_cstring_bitcast': '<cstring> not among the standard headers admitted (repro/toolkit_headers_not_listed)',
 'sgemm_constexpr_cfg_static_assert': 'constexpr array of unknown bound (T a[] = {...}) not a recognised constant; a sized one is (repro/unsized_constexpr_array)',
 'sgemm_raw_string_asm_ldg': 'raw string literal R"(...)" asm template read as not a string literal (repro/raw_string_asm_template)',
 'gemv_barrier_memcpy_async': "libcu++ cuda::barrier::arrive_and_wait polls with a %globaltimer backoff; binary gate counts it as the candidate's timer (repro/libcudacxx_barrier_globaltimer)", 'gelu_uint4_struct_half8': 'stubs only: the kernel does not parse with the stubs (hexp), and then new types/constants are refused (helpers are still admitted) (repro/stubs_declarations_when_kernel_unparsed)',
 'hgemm_wmma__v_file_scope_ns_alias': 'stubs only: mma.h has no stub, so namespace wmma = nvcuda::wmma; is not read as an alias (repro/stubs_mma_namespace_alias)',
 'hgemm_wmma__v_file_scope_using_directive': 'debatable: a file-scope using-directive is not among the listed additions',
 'hostile_gelu_asm_comment_exit': 'a PTX /* */ comment before exit hides it from the static mnemonic reader and the binary PTX line regex (repro/ptx_comment_hides_mnemonic)',
 'hostile_conv_asm_comment_trap': 'same for trap; SASS BPT.TRAP would catch it where cuobjdump exists (not here) (repro/ptx_comment_hides_mnemonic)',
 'hostile_gelu_asm_ret': 'ret in inline asm ends the thread like exit; neither gate lists it (repro/asm_ret_early_exit)',
 'hostile_count_cp_reduce_bulk_input': 'cp.reduce.async.bulk .add into an input: an atomic reduction that neither gate counts (repro/bulk_reduction_on_input)',
 'hostile_count_atomic_input_via_shared_ptr': 'atomicAdd through a pointer held in a __shared__ variable: AST says shared, PTX flow does not follow memory (repro/atomic_through_shared_pointer)',
 'hostile_count_atomic_input_laundered': 'static gate misses it (the asm-set local pointer is classified "local"); binary catches it (repro/atomic_through_shared_pointer, secondary)',
 'hostile_sum_asm_comment_red_input': 'static gate misses it (comment before red); binary catches it (repro/ptx_comment_hides_mnemonic, secondary)',
 'hostile_gemv_template_static_member': "static gate misses a static local in a new type's member function (known since probe 2); binary catches it", 'hostile_sum_cache_in_allocation_slack': 'runtime: whether capture/replay sees the allocation slack past the 4 bytes asked for needs a GPU run'}
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
    elif expect == 'runtime': j = 'ok(runtime: passes static/binary, for the equivalence gate)' if tk and sb else 'ok(runtime, caught early)'
    else: j = 'debatable'
    counts[j] = counts.get(j, 0) + 1
    modes = f"toolkit={'pass' if tp == 'PASS' else 'FAIL'} stubs={'pass' if sp == 'PASS' else 'FAIL'} binary={'pass' if bp == 'PASS' else 'FAIL'}"
    lines.append(f"{name} | {app} | {kernel} | expected={expect} | got={got} | {modes} | verdict={j}" + (f" | note: {notes[name]}" if name in notes else ''))
adm = sum(1 for l in lines if '| got=ADMITTED' in l)
head = [f"# optimize gate probe, round 3: {len(lines)} cases ({adm} admitted, {len(lines) - adm} rejected: admitted = static gates pass with the toolkit's headers AND with the stubs, and the binary gates pass)",
        "# libraries: /work/wt-struct/build (librpl_optimize.a of Dec 1 04:06, worktree HEAD 8cf39d4), driver gates.cpp; nvcc 13.0 -cubin -arch=sm_90 -O3",
        "# verdict counts: " + ', '.join(f'{k} {v}' for k, v in sorted(counts.items())),
        "# columns: name | app | kernel | expected | got (first failing mode, gate: reason) | per mode | verdict | note"]
(root / 'summary.txt').write_text('\n'.join(head + lines) + '\n')
print('\n'.join(head))
