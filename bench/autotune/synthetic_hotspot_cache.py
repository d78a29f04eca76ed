#!/usr/bin/env python3
"""A synthetic Kernel Tuner cache over the benchmark hub's hotspot space (AutoTuningAssociation/benchmark_hub,
kernels/hotspot_milo.json: its ten parameters and four conditions, 82,984 valid configurations), with a made-up
time (smooth in each parameter, 2% of the configurations five times slower), to check that `rocm-perf autotune
--simulate` holds a space of that size: the hub's own hotspot caches are larger than what can be fetched here. Not a
quality benchmark: the times are invented.
  synthetic_hotspot_cache.py OUT.json.gz [--full-entries]   (--full-entries: each entry with the fields Kernel
  Tuner writes, times, compile_time, ..., as large as the hub's caches are)"""
import json, gzip, random, math, sys, itertools
bx=[1,2,4,8,16]+list(range(32,1025,32)); by=[2**i for i in range(6)]; r10=list(range(1,11))
keys=["grid_width","grid_height","block_size_x","block_size_y","tile_size_x","tile_size_y","temporal_tiling_factor","max_tfactor","loop_unroll_factor_t","sh_power"]
tp={"grid_width":[4096],"grid_height":[4096],"block_size_x":bx,"block_size_y":by,"tile_size_x":r10,"tile_size_y":r10,"temporal_tiling_factor":r10,"max_tfactor":[10],"loop_unroll_factor_t":r10,"sh_power":[0,1]}
rng=random.Random(1)
cache={}
n=0
for x,y,tx,ty,t,u,sp in itertools.product(bx,by,r10,r10,r10,r10,[0,1]):
    if not (x*y>=32 and x*y<=1024 and t%u==0): continue
    if (x*tx+t*2)*(y*ty+t*2)*(2+sp)*4>49152: continue
    # extra conditions of the hub (approximate): block_size_x*tile_size_x... keep as is
    n+=1
    time=(1+abs(math.log2(x*y)-8)*0.3)*(1+abs(tx*ty-6)*0.05)*(1+abs(t-4)*0.1)*(1+0.05*u)*(1.1 if sp else 1)*(1+rng.random()*0.05)
    if rng.random()<0.02: time*=5
    k=",".join(str(v) for v in [4096,4096,x,y,tx,ty,t,10,u,sp])
    cache[k]=dict(zip(keys,[4096,4096,x,y,tx,ty,t,10,u,sp]))
    cache[k]["time"]=time
doc={"device_name":"synthetic","kernel_name":"hotspot","problem_size":[4096,4096],"tune_params_keys":keys,"tune_params":tp,"objective":"time","cache":cache}
if "--full-entries" in sys.argv:
    for e in cache.values():
        t = e["time"]
        e.update({"times": [t * (1 + rng.random() * 0.02) for _ in range(32)], "compile_time": 900 + rng.random() * 300,
                  "verification_time": 0, "benchmark_time": t * 35, "strategy_time": 0, "framework_time": 1.5 + rng.random(),
                  "timestamp": "2024-02-01 12:00:00.000000+00:00", "GFLOP/s": 100.0 / t})
opener = gzip.open if sys.argv[1].endswith(".gz") else open
with opener(sys.argv[1], "wt") as f:
    json.dump(doc, f)
print(n, "configurations")
