#!/bin/bash
# nvcc -cubin -arch=sm_90 -O3 of every generated candidate and app (cc/), and as a whole host+device object (cc_host/), in parallel
cd /tmp/optprobe3
one() {
  f=$1; n=$(basename $f .cu)
  r1=OK; r2=OK
  nice nvcc -cubin -arch=sm_90 -O3 -Iapps -o cc/$n.cubin $f >cc/$n.log 2>&1 || r1=FAIL
  nice nvcc -c -arch=sm_90 -O3 -Iapps -o cc_host/$n.o $f >cc_host/$n.log 2>&1 || r2=FAIL
  echo "$r1 $r2 $n"
}
export -f one
ls apps/*.cu gen/*.cu | xargs -P 8 -I{} bash -c 'one {}'
