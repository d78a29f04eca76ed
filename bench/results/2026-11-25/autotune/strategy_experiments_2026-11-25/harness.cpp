// Dev harness: runs tune() in-process over a measured space table (TRACE=SEED prints that seed's measurements).
#include "autotune/tuner.hpp"
#include <fstream>
#include <iostream>
#include <map>
#include <algorithm>
#include <cmath>
#include <cstdlib>
using namespace rpl::autotune;
struct TableEval : Evaluator {
  std::map<std::string, double> t;  // key -> ms, <0 invalid
  Outcome evaluate(const SearchSpace& s, ConfigView c, std::size_t) override {
    auto it = t.find(s.key(c));
    if (it == t.end() || it->second < 0) return {false, 0, "invalid"};
    return {true, it->second, ""};
  }
  nlohmann::ordered_json describe() const override { return {}; }
};
int main(int argc, char** argv) {
  std::string file = argv[1]; int seeds = std::atoi(argv[2]); int s0 = argc > 3 ? std::atoi(argv[3]) : 0;
  auto doc = nlohmann::ordered_json::parse(std::ifstream(file));
  auto space = SearchSpace::from_json(doc["space"], file);
  TableEval ev; double best = 1e30; std::size_t nvalid = 0;
  for (auto& r : doc["results"]) {
    std::vector<double> v; for (auto& [k, _] : doc["space"]["parameters"].items()) v.push_back(r[k].get<double>());
    auto i = space.find(v); if (i == SearchSpace::npos) continue;
    double ms = r["valid"].get<bool>() ? r["time_ms"].get<double>() : -1;
    ev.t[space.key(space.config(i))] = ms;
    if (ms > 0) { best = std::min(best, ms); ++nvalid; }
  }
  std::vector<double> ratios;
  for (int seed = s0; seed < s0 + seeds; ++seed) {
    TuneOptions o; o.seed = seed; o.budget = parse_budget(std::getenv("BUDGET") ? std::getenv("BUDGET") : "2%", nvalid);
    auto r = tune(space, ev, nullptr, nullptr, o);
    double ratio = r.measurements[*r.best].outcome.objective / best;
    if (std::getenv("FEATS") && seed == s0)
      for (auto& f : r.features) std::cout << f << "\n";
    if (std::getenv("TRACE") && std::atoi(std::getenv("TRACE")) == seed) {
      for (auto& m : r.measurements)
        std::cout << m.sequence << " " << m.phase << " " << space.key(space.config(m.config)) << " "
                  << (m.outcome.valid ? m.outcome.objective / best : -1) << "\n";
    }
    ratios.push_back(ratio);
    std::cout << seed << ":" << std::fixed; std::cout.precision(3); std::cout << ratio << " " << std::flush;
  }
  auto s = ratios; std::sort(s.begin(), s.end());
  int w5 = 0, w10 = 0; for (double x : s) { w5 += x <= 1.05; w10 += x <= 1.10; }
  std::cout << "\nmedian " << s[s.size() / 2] << " worst " << s.back() << " within5 " << w5 << " within10 " << w10 << "/" << s.size() << "\n";
}
