#include "autotune/space.hpp"
#include "autotune/features.hpp"
#include "autotune/surrogate.hpp"
#include <fstream>
#include <iostream>
#include <random>
#include <algorithm>
#include <numeric>
#include <cmath>
using namespace rpl::autotune;
int main(int argc, char** argv) {
  std::string file = argv[1]; int n = std::atoi(argv[2]);
  auto doc = nlohmann::ordered_json::parse(std::ifstream(file));
  auto space = SearchSpace::from_json(doc["space"], file);
  std::vector<double> t(space.size(), -1); double best = 1e30;
  for (auto& r : doc["results"]) {
    std::vector<double> v; for (auto& [k, _] : doc["space"]["parameters"].items()) v.push_back(r[k].get<double>());
    auto i = space.find(v); if (i == SearchSpace::npos) continue;
    t[i] = r["valid"].get<bool>() ? r["time_ms"].get<double>() : -1; if (t[i] > 0) best = std::min(best, t[i]);
  }
  std::vector<std::size_t> valid; for (std::size_t i = 0; i < t.size(); ++i) if (t[i] > 0) valid.push_back(i);
  FeatureMap fm(space);
  int ks[] = {1, 5, 10, 20, 40};
  std::vector<std::vector<double>> res(5);
  for (int seed = 0; seed < 20; ++seed) {
    std::mt19937_64 rng(seed); auto v = valid; std::shuffle(v.begin(), v.end(), rng);
    Matrix x; x.cols = fm.size(); std::vector<float> y; std::vector<bool> in(space.size());
    for (int i = 0; i < n; ++i) { fm.append(v[i], x.data); y.push_back(std::log(t[v[i]])); in[v[i]] = true; }
    TreeEnsemble m; ModelOptions mo; mo.seed = seed; m.fit(x, y, mo);
    Matrix c; c.cols = fm.size(); std::vector<std::size_t> cand;
    for (auto i : valid) if (!in[i]) { fm.append(i, c.data); cand.push_back(i); }
    std::vector<float> p; m.predict(c, p);
    std::vector<std::size_t> o(cand.size()); std::iota(o.begin(), o.end(), 0);
    std::sort(o.begin(), o.end(), [&](auto a, auto b) { return p[a] < p[b]; });
    double sb = 1e30; for (int i = 0; i < n; ++i) sb = std::min(sb, t[v[i]]);
    for (int k = 0; k < 5; ++k) { double bb = sb; for (int j = 0; j < ks[k]; ++j) bb = std::min(bb, t[cand[o[j]]]); res[k].push_back(bb / best); }
  }
  for (int k = 0; k < 5; ++k) { auto r = res[k]; std::sort(r.begin(), r.end()); int w = 0; for (double q : r) w += q <= 1.1;
    std::cout << "n=" << n << " top" << ks[k] << ": median " << r[r.size()/2] << " worst " << r.back() << " within10 " << w << "/20\n"; }
}
