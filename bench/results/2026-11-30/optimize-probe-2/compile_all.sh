#!/bin/bash
# nvcc -cubin -arch=sm_90 -O3 of every generated candidate, one at a time
cd /tmp/optprobe2
for f in gen/*.cu; do
  n=$(basename $f .cu)
  if nice nvcc -cubin -arch=sm_90 -O3 -Iapps -o cc/$n.cubin $f >cc/$n.log 2>&1; then echo "OK $n"; else echo "FAIL $n"; fi
done
