# Final ratio of each run (best within B = ceil(budget% x valid configurations) evaluations, failed ones counted)
# against main's run of the same space, budget and seed. Usage: quick_cmp.py NEW_RUNS_DIR BASE_RUNS_DIR
import json,glob,os,math,sys
new_dir, base_dir = sys.argv[1], sys.argv[2]
valid={'conv':2574,'gemm':2385,'kt_convolution_A100':4201,'kt_convolution_A4000':4201,'kt_convolution_A6000':3889,'kt_convolution_MI250X':4362,'kt_convolution_W6600':4362,'kt_convolution_W7800':4246,
       **{f'kt_dedispersion_{g}': 11130 for g in ('A100', 'A4000', 'A6000', 'MI250X', 'W6600', 'W7800')}}
def load(p):
    out={}
    for l in open(p):
        r=json.loads(l)
        if r.get('header'): continue
        out[r['seed']]=r
    return out
tot=[0,0,0]
for f in sorted(glob.glob(new_dir+'/*.jsonl')):
    n=os.path.basename(f)
    sp=n.split('_')[0] if n.startswith(('conv','gemm')) else '_'.join(n.split('_')[:3])
    if sp not in valid: continue
    new=load(f); b=os.path.join(base_dir,n)
    if not new or not os.path.exists(b): continue
    base=load(b)
    pct=2 if '_2pct' in n else 5
    B=math.ceil(pct/100*valid[sp])
    def fin(r): return min([v for t,v in r['improvements'] if t<=B] or [float('inf')])
    better=worse=0; w10n=w10b=0
    for s in new:
        x,y=fin(new[s]),fin(base[s])
        better+=x<y-1e-12; worse+=x>y+1e-12; w10n+=x<=1.1; w10b+=y<=1.1
    import statistics
    print(f"{n:45s} n={len(new):2d} better/worse {better}/{worse} within10 {w10n} vs {w10b} median {statistics.median([fin(new[s]) for s in new]):.4f} vs {statistics.median([fin(base[s]) for s in new]):.4f}")
    tot[0]+=better; tot[1]+=worse
print('total better/worse', tot[:2])
