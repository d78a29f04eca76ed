import sys, math, glob
def stats(trace, budget, frac=0.25):
    pl = math.ceil(frac*budget); v=[]
    for l in open(trace):
        parts=l.split()
        if len(parts)<4: continue
        try: x=float(parts[3])
        except: continue
        if x>0: v.append(x)
        if len(v) >= budget-pl: break
    b=min(v); return len(v), sum(x<=1.01*b for x in v), sum(x<=1.02*b for x in v), sum(x<=1.05*b for x in v)
for f in sys.argv[2:]:
    print(f, stats(f, int(sys.argv[1])))
