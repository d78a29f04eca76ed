#!/usr/bin/env python3
"""per_seed.py RUNS.jsonl ...: per space and budget, fvnd25s15 against base (final ratio per seed, seeds better / worse)."""
import json,sys,collections
R=[json.loads(l) for f in sys.argv[1:] for l in open(f)]
by={}
for r in R: by[(r['variant'],r['space'],r['budget_pct'],r['seed'])]=r
fin=lambda r: r['improvements'][-1][1]
agg=collections.defaultdict(list)
for (v,sp,b,s),r in sorted(by.items()):
    if v!='fvnd25s15': continue
    bb=by.get(('base',sp,b,s))
    if bb: agg[(sp[16:],b)].append((s,fin(r),fin(bb)))
for k,L in sorted(agg.items()):
    bt=sum(x<y for _,x,y in L); wr=sum(x>y for _,x,y in L)
    print(k,len(L),'better',bt,'worse',wr,' '.join('%d:%.4f/%.4f'%t for t in L))
