#!/usr/bin/env python3
"""Builds each candidate of /tmp/optprobe3/specs/*.cu into a whole app file in /tmp/optprobe3/gen/.
A spec has header lines `//@app`, `//@kernel`, `//@expect admit|reject`, `//@what`, optional `//@replace [old, new]`
(JSON, a literal replacement in the generated file, for host-code changes), `//@transform crlf|crlf_kernel|tabs`,
then sections `//@@ includes` (after the app's last #include), `//@@ before` (before the kernel's marker),
`//@@ kernel` (replaces the kernel between the markers), `//@@ after` (after the kernel's end marker)."""
import json, pathlib, re, sys
root = pathlib.Path('/tmp/optprobe3')
rows = []
for spec in sorted((root / 'specs').glob('*.cu')):
    meta, sections, cur, replaces, transforms = {}, {}, None, [], []
    for line in spec.read_text().split('\n'):
        if line.startswith('//@@ '):
            cur = line[5:].strip(); sections[cur] = []; continue
        if cur is None and line.startswith('//@'):
            k, _, v = line[3:].partition(' ')
            if k == 'replace': replaces.append(json.loads(v))
            elif k == 'transform': transforms.append(v.strip())
            else: meta[k] = v.strip()
            continue
        if cur is not None: sections[cur].append(line)
    for k in sections:
        while sections[k] and sections[k][-1] == '': sections[k].pop()
    app = (root / 'apps' / meta['app']).read_text().split('\n')
    k = meta['kernel']
    b = app.index(f'// @kernel {k} {{'); e = app.index(f'// @kernel {k} }}')
    kernel = sections.get('kernel', app[b + 1:e])
    out = app[:b] + sections.get('before', []) + [app[b]] + kernel + [app[e]] + sections.get('after', []) + app[e + 1:]
    if 'includes' in sections:
        last = max(i for i, l in enumerate(out) if l.startswith('#include'))
        out = out[:last + 1] + sections['includes'] + out[last + 1:]
    text = '\n'.join(out)
    for old, new in replaces:
        assert old in text, (spec, old); text = text.replace(old, new)
    for t in transforms:
        if t == 'crlf': text = text.replace('\n', '\r\n')
        elif t == 'crlf_kernel':
            lines = text.split('\n'); kb = lines.index(f'// @kernel {k} {{'); ke = lines.index(f'// @kernel {k} }}')
            text = '\n'.join(l + '\r' if kb <= i <= ke else l for i, l in enumerate(lines))
        elif t == 'tabs':
            text = '\n'.join(re.sub(r'^((?:  )+)', lambda m: '\t' * (len(m.group(1)) // 2), l) for l in text.split('\n'))
        else: sys.exit(f'unknown transform {t}')
    dst = root / 'gen' / spec.name
    dst.write_bytes(text.encode())
    rows.append('\t'.join([spec.stem, meta['app'], k, meta['expect'], meta.get('what', '')]))
(root / 'cases.tsv').write_text('\n'.join(rows) + '\n')
print(len(rows), 'cases')
