import sys
name=sys.argv[1]
parts=open(name+'.in').read().split('%%\n')
inc,before,kern=parts
app=open('tiny.cu').read()
a=app.index('// @kernel scale {'); b=app.index('// @kernel scale }')
out=app[:a]+before+app[a:a+len('// @kernel scale {\n')]+kern+app[b:]
if inc:
  j=out.index('#include <vector>\n')+len('#include <vector>\n'); out=out[:j]+inc+out[j:]
open(name+'.cu','w').write(out)
