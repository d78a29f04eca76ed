// Reading a dump file: stream iterators (optimize/equivalence.cpp before 2026-11-29) against one sized read.
// Build: g++ -O2 -o /tmp/read_dump_bench bench/optimize/read_dump_bench.cpp; needs /tmp/dumpt/a/r00000{1,2,3}.bin (16 MiB each,
// e.g. head -c 16777216 /dev/urandom).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>
#include <string>
std::vector<char> slow(const std::string& p){std::ifstream in(p,std::ios::binary);return std::vector<char>((std::istreambuf_iterator<char>(in)),std::istreambuf_iterator<char>());}
std::vector<char> fast(const std::string& p){std::ifstream in(p,std::ios::binary|std::ios::ate);size_t n=in.tellg();in.seekg(0);std::vector<char> v(n);in.read(v.data(),n);return v;}
int main(){for(int mode=0;mode<2;++mode){auto t=std::chrono::steady_clock::now();size_t tot=0;for(int r=1;r<=3;++r){char f[64];snprintf(f,64,"/tmp/dumpt/a/r%06d.bin",r);auto v=mode?fast(f):slow(f);tot+=v.size();}
printf("%s: %zu bytes in %.3f s\n",mode?"sized read":"istreambuf_iterator",tot,std::chrono::duration<double>(std::chrono::steady_clock::now()-t).count());}}
