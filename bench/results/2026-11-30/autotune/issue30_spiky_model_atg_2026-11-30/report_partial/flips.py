import sys,re
def rows(p):
    out={}
    for l in open(p):
        if re.search(r"\| (met|not met) \|$", l.strip()):
            c=[x.strip() for x in l.strip().strip('|').split('|')]
            out[(c[0],c[1],c[2])]=(c[-1], l.strip())
    return out
a,b=rows(sys.argv[1]),rows(sys.argv[2])
for k in a:
    if k in b and a[k][0]!=b[k][0]:
        print("FLIP", a[k][0], "->", b[k][0]); print("  before:", a[k][1]); print("   after:", b[k][1])
print("distinct target rows met: before", sum(v[0]=='met' for v in a.values()), "of", len(a), "; after", sum(v[0]=='met' for v in b.values()), "of", len(b))
