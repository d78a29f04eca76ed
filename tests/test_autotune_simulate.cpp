// rocm-perf autotune --simulate: the search against a Kernel Tuner cache, nothing run. The cache holds the
// table of test_autotune_cli's fixture (a bowl with one optimum, 20 configurations that fail at run time), so a
// simulated search must make exactly the decisions of the same search running the stand-in command.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace rpl::test {
namespace {

const std::string kStandin = std::string(RPL_TEST_DOUBLES_DIR) + "/autotune_standin";

// The objective as the stand-in prints it (6 significant digits), so the cache holds the same doubles.
double bowl(int a, int b, int c) {
  std::ostringstream text;
  text << 1 + std::pow(std::log2(a) - 3, 2) + 0.5 * std::pow(std::log2(b) - 2, 2) + 0.3 * c;
  return std::stod(text.str());
}

struct Fixture {
  TempDir dir;
  std::string space = dir.file("space.json");
  std::string table = dir.file("table.csv");
  std::string cache = dir.file("kt_cache.json");
  Fixture() {
    std::ofstream(space) << R"({"parameters": {"A": [1, 2, 4, 8, 16, 32], "B": [1, 2, 4, 8, 16, 32],
                                "C": [0, 1, 2, 3]}, "restrictions": ["A*B <= 512"]})";
    std::ofstream t(table);
    t << "A,B,C,time_ms\n";
    nlohmann::ordered_json entries = nlohmann::ordered_json::object();
    for (int a = 1; a <= 32; a *= 2)
      for (int b = 1; b <= 32; b *= 2)
        for (int c = 0; c < 4; ++c) {
          const bool fails = a * b >= 256;
          const std::string key = std::to_string(a) + "," + std::to_string(b) + "," + std::to_string(c);
          nlohmann::ordered_json e = {{"A", a}, {"B", b}, {"C", c}};
          if (a * b > 512) {  // outside the restriction: Kernel Tuner records these as InvalidConfig
            e["time"] = "InvalidConfig";
          } else if (fails) {
            e["time"] = "RuntimeFailedConfig";
            t << a << "," << b << "," << c << ",invalid: too many resources requested\n";
          } else {
            e["time"] = bowl(a, b, c);
            t << a << "," << b << "," << c << "," << bowl(a, b, c) << "\n";
          }
          entries[key] = e;
        }
    nlohmann::ordered_json doc = {{"device_name", "test"}, {"kernel_name", "bowl"}, {"problem_size", {1}},
                                  {"tune_params_keys", {"A", "B", "C"}},
                                  {"tune_params", {{"A", {1, 2, 4, 8, 16, 32}}, {"B", {1, 2, 4, 8, 16, 32}},
                                                   {"C", {0, 1, 2, 3}}}},
                                  {"objective", "time"}, {"cache", entries}};
    std::ofstream(cache) << doc.dump(1);
  }
  std::vector<std::string> simulate(const std::string& cache_file, const std::string& out,
                                    std::vector<std::string> extra = {}) const {
    std::vector<std::string> a = {"autotune", "--simulate", cache_file, "-o", dir.file(out), "--json"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

std::vector<std::string> sequence_of(const nlohmann::json& d) {
  std::vector<std::string> out;
  for (const auto& m : d["measurements"]) out.push_back(m["config"].dump() + (m["status"] == "ok" ? "" : " invalid"));
  return out;
}

// A number as the summary prints it (%.6g).
std::string fmt_g(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

nlohmann::json parse(const CliResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

TEST(AutotuneSimulate, SameDecisionsAsRunningTheConfigurationsAndAValidDocument) {
  Fixture f;
  for (const std::string strategy : {"model", "random"}) {
    SCOPED_TRACE(strategy);
    const nlohmann::json sim = parse(run_cli(f.simulate(f.cache, "sim_" + strategy, {"--budget", "25", "--seed", "3",
                                                                                     "--strategy", strategy})));
    EXPECT_EQ(validate_against_schema("autotune", f.dir.file("sim_" + strategy + "/autotune.json")), "");
    const nlohmann::json ran = parse(run_cli(
        {"autotune", "--space", f.space, "--cmd-template", kStandin + " " + f.table + " A={A} B={B} C={C}",
         "--objective", "stdout", "--objective-regex", "time_ms: (\\S+)", "--budget", "25", "--seed", "3",
         "--strategy", strategy, "-o", f.dir.file("ran_" + strategy), "--json"}));
    // The cache's configurations (InvalidConfig entries left out) are the restricted space, in the same order.
    EXPECT_EQ(sim["space"]["valid_configurations"], 140);
    EXPECT_EQ(sequence_of(sim), sequence_of(ran));
    EXPECT_EQ(sim["best"], ran["best"]);
    EXPECT_EQ(sim["objective"]["kind"], "simulation");
    EXPECT_EQ(sim["simulation"]["optimum"], 1.0);
    EXPECT_EQ(sim["simulation"]["valid_in_cache"], 120);
    EXPECT_DOUBLE_EQ(sim["simulation"]["best_to_optimum"].get<double>(), sim["best"]["objective"].get<double>());
  }
}

TEST(AutotuneSimulate, GzipCompressedAndUnterminatedCachesAndAGivenSpace) {
  Fixture f;
  const nlohmann::json plain = parse(run_cli(f.simulate(f.cache, "plain", {"--budget", "20"})));
  ASSERT_EQ(std::system(("gzip -k " + f.cache).c_str()), 0);
  const nlohmann::json gz = parse(run_cli(f.simulate(f.cache + ".gz", "gz", {"--budget", "20"})));
  EXPECT_EQ(sequence_of(gz), sequence_of(plain));
  // A killed Kernel Tuner leaves the braces open.
  std::string text = read_file(f.cache);
  text = text.substr(0, text.rfind('}'));
  text = text.substr(0, text.rfind('}'));
  const std::string open = f.dir.file("open.json");
  std::ofstream(open) << text << ",\n";
  const nlohmann::json unterminated = parse(run_cli(f.simulate(open, "open", {"--budget", "20"})));
  EXPECT_EQ(sequence_of(unterminated), sequence_of(plain));
  // The space given explicitly (restrictions instead of the cache's list): the same search.
  const nlohmann::json given = parse(run_cli(f.simulate(f.cache, "given", {"--budget", "20", "--space", f.space})));
  EXPECT_EQ(sequence_of(given), sequence_of(plain));
  EXPECT_EQ(given["space"]["restrictions"][0], "A*B <= 512");
}

// --max-evaluations N: Kernel Tuner's max_fevals. The run stops after N configurations evaluated, the failed ones
// counted (20 of the fixture's 140 fail), and makes the same decisions as a run without it, cut there: the report
// of issue 30 cut our runs at the same count to compare them with Kernel Tuner's.
TEST(AutotuneSimulate, MaxEvaluationsCountsFailedConfigurationsAsKernelTunerDoes) {
  Fixture f;
  for (const std::string strategy : {"model", "random"}) {
    SCOPED_TRACE(strategy);
    const nlohmann::json cut = parse(run_cli(f.simulate(f.cache, "cut_" + strategy,
                                                        {"--max-evaluations", "40", "--seed", "5", "--strategy", strategy})));
    EXPECT_EQ(validate_against_schema("autotune", f.dir.file("cut_" + strategy + "/autotune.json")), "");
    EXPECT_EQ(cut["measurements"].size(), 40u);
    EXPECT_EQ(cut["budget"]["measured_valid"].get<int>() + cut["budget"]["invalid"].get<int>(), 40);
    EXPECT_GT(cut["budget"]["invalid"].get<int>(), 0);  // failed ones were evaluated and counted
    EXPECT_EQ(cut["budget"]["stop_reason"], "evaluations");
    EXPECT_EQ(cut["budget"]["max_evaluations"], 40);
    EXPECT_EQ(cut["budget"]["configurations"], 40);  // alone, it is the budget too
    // The same search without the cut, given the same budget. The random search makes the same first 40
    // decisions. The model search plans against the limit that ends the run: the same decisions until the last
    // tenth of the 40 evaluations, then the final descent (late_descent.hpp), each measurement one or two
    // parameters from the best measured before it; the run without the cut reaches its last tenth only at 36
    // valid measurements, later.
    const nlohmann::json whole = parse(run_cli(f.simulate(f.cache, "whole_" + strategy,
                                                          {"--budget", "40", "--seed", "5", "--strategy", strategy})));
    EXPECT_TRUE(whole["budget"]["max_evaluations"].is_null());
    std::vector<std::string> prefix = sequence_of(whole);
    ASSERT_GT(prefix.size(), 40u);
    const std::size_t same = strategy == "random" ? 40 : 36;
    prefix.resize(same);
    std::vector<std::string> cut_prefix = sequence_of(cut);
    cut_prefix.resize(same);
    EXPECT_EQ(cut_prefix, prefix);
    if (strategy == "model") {
      const nlohmann::json* best = nullptr;
      for (const auto& m : cut["measurements"]) {
        if (m["sequence"].get<std::size_t>() >= 36) {
          ASSERT_NE(best, nullptr);
          int changed = 0;
          for (const auto& [name, value] : m["config"].items()) changed += value != (*best)["config"][name];
          EXPECT_TRUE(changed == 1 || changed == 2) << m.dump();
        }
        if (m["status"] == "ok" && (!best || m["objective"].get<double>() < (*best)["objective"].get<double>()))
          best = &m;
      }
    }
  }
  // With --budget too, whichever comes first: 10 valid measurements come before 40 evaluations.
  const nlohmann::json both = parse(run_cli(f.simulate(f.cache, "both", {"--max-evaluations", "40", "--budget", "10"})));
  EXPECT_EQ(both["budget"]["measured_valid"], 10);
  EXPECT_EQ(both["budget"]["stop_reason"], "budget");
  EXPECT_LT(both["measurements"].size(), 40u);
  for (const char* bad : {"0", "-3", "2%", "many"}) {
    const CliResult r = run_cli(f.simulate(f.cache, "bad", {"--max-evaluations", bad}));
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--max-evaluations"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

// Kernel Tuner's parameters may hold strings and booleans ("layout": ["NCHW", "NHWC"], "use_shmem": [true, false]).
// A cache with them simulates like a numeric one, with or without tune_params; the document writes the values as
// listed and validates; a --space with them substitutes their text into commands, and its exported Kernel Tuner
// cache keys them as Kernel Tuner does ("NCHW,True,64") and imports back. Before, such a cache was refused.
TEST(AutotuneSimulate, StringAndBooleanParametersAsKernelTunerWritesThem) {
  TempDir dir;
  nlohmann::ordered_json entries = nlohmann::ordered_json::object();
  for (const bool shmem : {true, false})
    for (const std::string layout : {"NCHW", "NHWC"})
      for (const int bs : {32, 64, 128}) {
        const std::string key = std::string(shmem ? "True" : "False") + "," + layout + "," + std::to_string(bs);
        entries[key] = {{"use_shmem", shmem}, {"layout", layout}, {"bs", bs},
                        {"time", 1.0 + bs / 64.0 + (shmem ? 0.0 : 0.7) + (layout == "NHWC" ? 0.2 : 0.0)}};
      }
  for (const bool listed : {true, false}) {
    SCOPED_TRACE(listed ? "with tune_params" : "without tune_params");
    nlohmann::ordered_json doc = {{"tune_params_keys", {"use_shmem", "layout", "bs"}}, {"cache", entries}};
    if (listed) doc["tune_params"] = {{"use_shmem", {true, false}}, {"layout", {"NCHW", "NHWC"}}, {"bs", {32, 64, 128}}};
    const std::string cache = dir.file(listed ? "listed.json" : "unlisted.json");
    std::ofstream(cache) << doc.dump();
    const std::string out = dir.file(listed ? "sim_listed" : "sim_unlisted");
    const nlohmann::json d = parse(run_cli({"autotune", "--simulate", cache, "--budget", "12", "-o", out, "--json"}));
    EXPECT_EQ(validate_against_schema("autotune", out + "/autotune.json"), "");
    EXPECT_EQ(d["simulation"]["valid_in_cache"], 12);
    EXPECT_EQ(d["best"]["config"]["use_shmem"], true);
    EXPECT_EQ(d["best"]["config"]["layout"], "NCHW");
    EXPECT_EQ(d["best"]["config"]["bs"].get<double>(), 32.0);
    EXPECT_TRUE(d["best"]["config"]["bs"].is_number_integer()) << "written as in the cache: 32, not 32.0";
    EXPECT_EQ(d["measurements"].size(), 12u);
  }
  // A --space with them: commands get their text; the exported cache is Kernel Tuner's and imports back.
  const std::string space = dir.file("space.json");
  std::ofstream(space) << R"({"parameters": {"layout": ["NCHW", "NHWC"], "vec": [true, false], "bs": [32, 64]}})";
  const std::string kt = dir.file("kt.json");
  const nlohmann::json ran = parse(run_cli({"autotune", "--space", space, "--cmd-template", "echo {layout} {vec} {bs}",
                                            "--objective", "stdout", "--objective-regex", "(\\d+)", "--budget", "8",
                                            "-o", dir.file("ran"), "--export-cache", kt, "--json"}));
  EXPECT_EQ(validate_against_schema("autotune", dir.file("ran") + "/autotune.json"), "");
  ASSERT_EQ(ran["measurements"].size(), 8u);
  for (const auto& m : ran["measurements"]) EXPECT_EQ(m["objective"].get<double>(), m["config"]["bs"].get<double>());
  const nlohmann::json exported = nlohmann::json::parse(std::ifstream(kt));
  EXPECT_TRUE(exported["cache"].contains("NCHW,True,64")) << exported["cache"].dump();
  EXPECT_EQ(exported["cache"]["NCHW,True,64"]["vec"], true);
  EXPECT_EQ(exported["tune_params"]["layout"], nlohmann::json({"NCHW", "NHWC"}));
  const nlohmann::json again = parse(run_cli({"autotune", "--space", space, "--cmd-template", "false", "--budget", "8",
                                              "-o", dir.file("again"), "--import-cache", kt, "--json"}));
  EXPECT_EQ(again["budget"]["from_cache"], 8);
  // Values that cannot be keyed, or are neither number, string nor boolean, are refused naming the value.
  for (const char* bad : {R"({"parameters": {"layout": ["a,b", "c"]}})", R"({"parameters": {"layout": ["a", "a"]}})",
                          R"({"parameters": {"layout": ["a", null]}})"}) {
    std::ofstream(space) << bad;
    const CliResult r = run_cli({"autotune", "--space", space, "--cmd-template", "true", "--budget", "1", "-o",
                                 dir.file("bad")});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("parameter \"layout\""), std::string::npos) << r.err;
  }
}

// Kernel Tuner's own strategy-test cache lists "test_mixed": ["test", 1, true, 2.45]: a list that mixes numbers with
// strings and booleans. A cache's listed space has no restrictions, so such a list is taken as labels there (before:
// refused, "value \"test\" is not a number"); true and 1 stay apart. A --space with restrictions still refuses it.
TEST(AutotuneSimulate, MixedListsOfACachesOwnSpaceAreLabels) {
  TempDir dir;
  const nlohmann::ordered_json mixed = {"test", 1, true, 2.45};
  nlohmann::ordered_json entries = nlohmann::ordered_json::object();
  double t = 1.0;
  for (const int bs : {32, 64})
    for (const auto& m : mixed) {
      const std::string text = m.is_string() ? m.get<std::string>() : m.is_boolean() ? "True" : m.dump();
      entries[std::to_string(bs) + "," + text] = {{"bs", bs}, {"test_mixed", m}, {"time", t}};
      t += 1.0;  // the best: bs 32 with "test"; 1 and true differ by a whole unit
    }
  for (const bool listed : {true, false}) {
    SCOPED_TRACE(listed ? "with tune_params" : "without tune_params");
    nlohmann::ordered_json doc = {{"tune_params_keys", {"bs", "test_mixed"}}, {"cache", entries}};
    if (listed) doc["tune_params"] = {{"bs", {32, 64}}, {"test_mixed", mixed}};
    const std::string cache = dir.file(listed ? "mixed_listed.json" : "mixed_unlisted.json");
    std::ofstream(cache) << doc.dump();
    const std::string out = dir.file(listed ? "m_listed" : "m_unlisted");
    const nlohmann::json d = parse(run_cli({"autotune", "--simulate", cache, "--strategy", "exhaustive", "--budget",
                                            "100%", "-o", out, "--json"}));
    EXPECT_EQ(validate_against_schema("autotune", out + "/autotune.json"), "");
    EXPECT_EQ(d["space"]["valid_configurations"], 8);
    EXPECT_EQ(d["best"]["config"]["test_mixed"], "test");
    std::map<std::string, double> time_of;  // each configuration's measurement, by its values as written
    for (const auto& m : d["measurements"]) time_of[m["config"].dump()] = m["objective"].get<double>();
    EXPECT_EQ(time_of[nlohmann::json({{"bs", 32}, {"test_mixed", 1}}).dump()], 2.0);
    EXPECT_EQ(time_of[nlohmann::json({{"bs", 32}, {"test_mixed", true}}).dump()], 3.0);
    EXPECT_EQ(time_of[nlohmann::json({{"bs", 64}, {"test_mixed", 2.45}}).dump()], 8.0);
  }
  const std::string space = dir.file("space.json");
  std::ofstream(space) << R"({"parameters": {"bs": [32, 64], "test_mixed": ["test", 1, true, 2.45]},
                            "restrictions": ["test_mixed < 2"]})";
  const CliResult r = run_cli({"autotune", "--space", space, "--cmd-template", "true", "--budget", "1", "-o",
                               dir.file("refused")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("parameter \"test_mixed\": value \"test\" is not a number"), std::string::npos) << r.err;
}

// Kernel Tuner 1.x writes "objective" as a list (its first name is the one it sorts on), and a cache may be tuned
// on an objective where higher is better (GFLOP/s): before, the first ended in an internal error and the second
// was minimized, so the "best" was the slowest configuration. Now the search minimizes the reciprocal there and
// the document gives the values as the cache holds them.
TEST(AutotuneSimulate, ObjectivesAsKernelTunerWritesThemListsAndHigherIsBetter) {
  Fixture f;
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(read_file(f.cache));
  double most = 0;
  std::string fastest;
  for (auto& [key, e] : doc["cache"].items())
    if (e["time"].is_number()) {
      e["GFLOP/s"] = 100.0 / e["time"].get<double>();
      if (e["GFLOP/s"].get<double>() > most) {
        most = e["GFLOP/s"].get<double>();
        fastest = key;
      }
    }
  doc["objective"] = {"time"};
  const std::string listed = f.dir.file("listed.json");
  std::ofstream(listed) << doc.dump();
  const nlohmann::json plain = parse(run_cli(f.simulate(f.cache, "plain", {"--budget", "20"})));
  const nlohmann::json from_list = parse(run_cli(f.simulate(listed, "list", {"--budget", "20"})));
  EXPECT_EQ(sequence_of(from_list), sequence_of(plain));
  EXPECT_EQ(from_list["simulation"]["objective"], "time");
  EXPECT_EQ(from_list["simulation"]["higher_is_better"], false);

  doc["objective"] = {"GFLOP/s"};
  const std::string gflops = f.dir.file("gflops.json");
  std::ofstream(gflops) << doc.dump();
  // Exhaustive: the best must be the configuration of most GFLOP/s (the least time), not of fewest.
  const nlohmann::json all = parse(run_cli(f.simulate(gflops, "gflops", {"--strategy", "exhaustive", "--budget", "100%"})));
  EXPECT_EQ(validate_against_schema("autotune", f.dir.file("gflops/autotune.json")), "");
  const auto& top = doc["cache"][fastest];
  EXPECT_EQ(all["best"]["config"], nlohmann::json({{"A", top["A"]}, {"B", top["B"]}, {"C", top["C"]}}));
  EXPECT_EQ(all["simulation"]["higher_is_better"], true);
  EXPECT_DOUBLE_EQ(all["simulation"]["best_value"].get<double>(), most);
  EXPECT_DOUBLE_EQ(all["simulation"]["optimum_value"].get<double>(), most);
  EXPECT_DOUBLE_EQ(all["simulation"]["best_to_optimum"].get<double>(), 1.0);
  EXPECT_EQ(all["objective"]["higher_is_better"], true);
  EXPECT_EQ(all["budget"]["invalid"], 20);  // the failures Kernel Tuner wrote in "time" still fail
  // The terminal summary gives the best in the cache's own terms, not only the reciprocal the search minimized.
  const CliResult text = run_cli({"autotune", "--simulate", gflops, "--strategy", "exhaustive", "--budget", "100%",
                                  "-o", f.dir.file("gflops_text")});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("simulation: best GFLOP/s " + fmt_g(most) + " (higher is better"), std::string::npos) << text.out;
  // The model's search on GFLOP/s ends where it ends on time (the reciprocal is time / 100: the same ranking).
  const nlohmann::json model = parse(run_cli(f.simulate(gflops, "gflops_model", {"--budget", "20"})));
  EXPECT_EQ(model["best"]["config"], plain["best"]["config"]);
  EXPECT_NEAR(model["simulation"]["best_value"].get<double>(), 100.0 / plain["best"]["objective"].get<double>(), 1e-9);
  // Another column of the entries, chosen on the command line; a direction given for it.
  const nlohmann::json chosen = parse(run_cli(f.simulate(listed, "chosen", {"--strategy", "exhaustive", "--budget", "100%",
                                                                            "--simulate-objective", "GFLOP/s"})));
  EXPECT_DOUBLE_EQ(chosen["simulation"]["best_value"].get<double>(), most);
  const nlohmann::json as_min = parse(run_cli(f.simulate(gflops, "as_min", {"--strategy", "exhaustive", "--budget", "100%",
                                                                            "--simulate-direction", "min"})));
  EXPECT_LT(as_min["simulation"]["best_value"].get<double>(), most);
  // An objective of no known direction is refused until it is given; a tuning run imports only times.
  doc["objective"] = "score";
  const std::string unknown = f.dir.file("unknown.json");
  std::ofstream(unknown) << doc.dump();
  const CliResult refused = run_cli(f.simulate(unknown, "u"));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find(unknown + ": objective \"score\""), std::string::npos) << refused.err;
  EXPECT_EQ(run_cli(f.simulate(unknown, "u2", {"--simulate-objective", "GFLOP/s"})).exit_code, 0);
  // A named objective that no entry holds (a typo) is said so, with the columns there are, before any direction.
  const CliResult typo = run_cli(f.simulate(unknown, "u3", {"--simulate-objective", "GFLOPS"}));
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("--simulate-objective \"GFLOPS\" is in none of the cache's entries (their numeric columns: "
                          "GFLOP/s, time)"), std::string::npos) << typo.err;
  const CliResult imported = run_cli({"autotune", "--space", f.space, "--cmd-template", "/bin/true", "--import-cache",
                                      gflops, "-o", f.dir.file("imp"), "--json"});
  EXPECT_EQ(imported.exit_code, 2);
  EXPECT_NE(imported.err.find("its objective is \"GFLOP/s\""), std::string::npos) << imported.err;
}

// An objective that is zero or below in some entries (the benchmark hub's hyperparameter tuning caches hold a
// "score" from -1.8 to 0.5): the search models the logarithm and compares by ratios, so those configurations are
// failed ones, in either direction, with a warning that counts them; before, where lower is better they were
// valid measurements the model left out, and the "best" of a negative table was a ratio of negatives. A cache
// whose every entry is so is refused with the reason, not only "no valid measurement".
TEST(AutotuneSimulate, AnObjectiveZeroOrBelowFailsThoseConfigurationsAndIsCounted) {
  Fixture f;
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(read_file(f.cache));
  double most = 0;
  std::size_t runs = 0, at_or_below_zero = 0;
  for (auto& [key, e] : doc["cache"].items()) {
    if (!e["time"].is_number()) continue;
    ++runs;
    // score = 12 - time: the bowl's optimum (time 1.0) scores 11; the slowest configurations score zero or below.
    e["score"] = 12.0 - e["time"].get<double>();
    most = std::max(most, e["score"].get<double>());
    if (!(e["score"].get<double>() > 0)) ++at_or_below_zero;
  }
  ASSERT_GT(at_or_below_zero, 0u);
  ASSERT_LT(at_or_below_zero, runs);
  doc["objective"] = "score";
  const std::string scored = f.dir.file("scored.json");
  std::ofstream(scored) << doc.dump();
  const CliResult all = run_cli(f.simulate(scored, "max", {"--strategy", "exhaustive", "--budget", "100%",
                                                           "--simulate-direction", "max"}));
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.err.find(std::to_string(at_or_below_zero) + " configuration(s) have score zero or below: taken as "
                         "failed configurations"), std::string::npos) << all.err;
  const nlohmann::json d = nlohmann::json::parse(all.out);
  EXPECT_EQ(d["budget"]["invalid"].get<std::size_t>(), 20 + at_or_below_zero);
  EXPECT_DOUBLE_EQ(d["simulation"]["best_value"].get<double>(), most);
  std::size_t said = 0;
  for (const auto& m : d["measurements"])
    if (m["status"] != "ok" && m["reason"].get<std::string>().find("(not positive: the search needs an objective "
                                                                   "above zero)") != std::string::npos)
      ++said;
  EXPECT_EQ(said, at_or_below_zero);
  // Lower is better, the same entries: failed too (they were valid before).
  const nlohmann::json as_min = parse(run_cli(f.simulate(scored, "min", {"--strategy", "exhaustive", "--budget", "100%",
                                                                         "--simulate-direction", "min"})));
  EXPECT_EQ(as_min["budget"]["invalid"].get<std::size_t>(), 20 + at_or_below_zero);
  EXPECT_GT(as_min["simulation"]["best_value"].get<double>(), 0.0);
  // Every entry zero or below: refused, naming how many and why.
  for (auto& [key, e] : doc["cache"].items())
    if (e["time"].is_number()) e["score"] = -e["time"].get<double>();
  const std::string negative = f.dir.file("negative.json");
  std::ofstream(negative) << doc.dump();
  const CliResult refused = run_cli(f.simulate(negative, "neg", {"--simulate-direction", "min"}));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find(negative + ": no configuration of the space has a valid measurement; " +
                             std::to_string(runs) + " of them have score zero or below"), std::string::npos)
      << refused.err;
}

// Kernel Tuner's T4 results file (store_output_file; the benchmark hub ships one beside each cache): the same
// space and the same search as the cache it stands for; failures by their invalidity; a damaged result named.
TEST(AutotuneSimulate, KernelTunerT4ResultsFilesAreReadAsTheCacheTheyStandFor) {
  Fixture f;
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(read_file(f.cache));
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const auto& [_, e] : doc["cache"].items()) {
    nlohmann::ordered_json r = {{"timestamp", "2026-11-30 12:00:00+00:00"},
                                {"configuration", {{"A", e["A"]}, {"B", e["B"]}, {"C", e["C"]}}},
                                {"times", {{"runtimes", nlohmann::ordered_json::array()}}},
                                {"correctness", 1},
                                {"objectives", {"time"}}};
    if (e["time"].is_number()) {
      r["invalidity"] = "correct";
      r["measurements"] = {{{"name", "time"}, {"value", e["time"]}, {"unit", "ms"}}};
    } else {
      r["invalidity"] = e["time"] == "InvalidConfig" ? "constraints" : "runtime";
      r["measurements"] = nlohmann::ordered_json::array();
    }
    results.push_back(r);
  }
  const std::string t4 = f.dir.file("results_T4.json");
  std::ofstream(t4) << nlohmann::ordered_json({{"metadata", {{"timeunit", "miliseconds"}}}, {"schema_version", "1.0.0"},
                                               {"results", results}}).dump(1);
  const nlohmann::json from_cache = parse(run_cli(f.simulate(f.cache, "cache", {"--budget", "25", "--seed", "4"})));
  const nlohmann::json from_t4 = parse(run_cli(f.simulate(t4, "t4", {"--budget", "25", "--seed", "4"})));
  EXPECT_EQ(validate_against_schema("autotune", f.dir.file("t4/autotune.json")), "");
  EXPECT_EQ(from_t4["space"]["valid_configurations"], 140);  // the constraints' failures are outside the space
  EXPECT_EQ(sequence_of(from_t4), sequence_of(from_cache));
  EXPECT_EQ(from_t4["simulation"]["valid_in_cache"], 120);
  EXPECT_EQ(from_t4["budget"]["invalid"], from_cache["budget"]["invalid"]);
  ASSERT_EQ(std::system(("gzip -k " + t4).c_str()), 0);
  EXPECT_EQ(sequence_of(parse(run_cli(f.simulate(t4 + ".gz", "t4gz", {"--budget", "25", "--seed", "4"})))),
            sequence_of(from_cache));
  results[7].erase("configuration");
  const std::string damaged = f.dir.file("damaged_T4.json");
  std::ofstream(damaged) << nlohmann::ordered_json({{"results", results}}).dump();
  const CliResult r = run_cli(f.simulate(damaged, "d"));
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find(damaged + ": Kernel Tuner T4 results file: result 7 has no configuration"), std::string::npos)
      << r.err;
}

// --seeds N: N runs summed up as issue 30's report sums up a strategy; each run is the single run of its seed.
TEST(AutotuneSimulate, SeedsSumUpRunsThatAreEachTheSingleRunOfTheirSeed) {
  Fixture f;
  const std::vector<std::string> limit = {"--budget", "20", "--max-evaluations", "20"};
  std::vector<std::string> many = limit;
  many.insert(many.end(), {"--seeds", "4", "--seed", "7"});
  const nlohmann::json doc = parse(run_cli(f.simulate(f.cache, "seeds", many)));
  EXPECT_EQ(validate_against_schema("autotune-seeds", f.dir.file("seeds/simulation_seeds.json")), "");
  EXPECT_EQ(nlohmann::json::parse(read_file(f.dir.file("seeds/simulation_seeds.json"))), doc);
  ASSERT_EQ(doc["runs"].size(), 4u);
  EXPECT_EQ(doc["score_evaluations"], 20);
  EXPECT_EQ(doc["space"]["configurations"], 140);
  EXPECT_EQ(doc["space"]["valid"], 120);
  std::size_t within_10 = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::string seed = std::to_string(7 + i);
    std::vector<std::string> one = limit;
    one.insert(one.end(), {"--seed", seed});
    const nlohmann::json single = parse(run_cli(f.simulate(f.cache, "single" + seed, one)));
    EXPECT_EQ(doc["runs"][i]["seed"], 7 + i);
    EXPECT_DOUBLE_EQ(doc["runs"][i]["best_to_optimum"].get<double>(), single["simulation"]["best_to_optimum"].get<double>());
    EXPECT_EQ(doc["runs"][i]["evaluations"], single["measurements"].size());
    within_10 += single["simulation"]["best_to_optimum"].get<double>() <= 1.1 ? 1 : 0;
  }
  EXPECT_EQ(doc["summary"]["within_10pct"], within_10);
  // Side by side (--jobs): the same document.
  many.insert(many.end(), {"--jobs", "3"});
  EXPECT_EQ(parse(run_cli(f.simulate(f.cache, "seeds_jobs", many))), doc);
  EXPECT_GT(doc["summary"]["score"].get<double>(), 0.0);  // the model beats random search on this bowl
  const CliResult alone = run_cli({"autotune", "--space", f.space, "--cmd-template", "/bin/true", "--seeds", "3",
                                   "-o", f.dir.file("alone")});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_NE(alone.err.find("--seeds go with --simulate"), std::string::npos) << alone.err;
}

TEST(AutotuneSimulate, BadInputEndsWithOneMessageNamingTheFile) {
  Fixture f;
  const auto expect_fails = [&](const std::vector<std::string>& args, int code, const std::string& says) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, code) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  };
  const std::string missing = f.dir.file("missing.json");
  expect_fails(f.simulate(missing, "m"), 3, missing);
  const std::string garbage = f.dir.file("garbage.json");
  std::ofstream(garbage) << "this is not JSON";
  expect_fails(f.simulate(garbage, "g"), 4, "not a Kernel Tuner cache");
  const std::string broken_gz = f.dir.file("broken.json.gz");
  std::ofstream(broken_gz) << std::string("\x1f\x8b\x08\x00", 4) << "truncated";
  expect_fails(f.simulate(broken_gz, "b"), 4, broken_gz);
  // A space whose parameters are not the cache's.
  const std::string other = f.dir.file("other.json");
  std::ofstream(other) << R"({"parameters": {"A": [1, 2], "D": [0, 1], "C": [0]}})";
  expect_fails(f.simulate(f.cache, "o", {"--space", other}), 2, "from a different space");
  // A space with configurations the cache cannot answer (C = 4 was never measured).
  const std::string wider = f.dir.file("wider.json");
  std::ofstream(wider) << R"({"parameters": {"A": [1, 2, 4, 8, 16, 32], "B": [1, 2, 4, 8, 16, 32],
                              "C": [0, 1, 2, 3, 4]}})";
  expect_fails(f.simulate(f.cache, "w", {"--space", wider}), 2, "36 of the 180 configurations of space " + wider);
  // Nothing runs in a simulation, and its cache is the only source.
  expect_fails(f.simulate(f.cache, "c", {"--cmd-template", "/bin/true"}), 2, "runs nothing");
  expect_fails(f.simulate(f.cache, "i", {"--import-cache", f.cache}), 2, "--simulate takes every measurement");
  // A cache in which nothing ran successfully.
  nlohmann::json doc = nlohmann::json::parse(read_file(f.cache));
  for (auto& [_, e] : doc["cache"].items())
    if (e["time"].is_number()) e["time"] = "RuntimeFailedConfig";
  const std::string failed = f.dir.file("failed.json");
  std::ofstream(failed) << doc.dump();
  expect_fails(f.simulate(failed, "f"), 2, "no configuration of the space has a valid measurement");
  EXPECT_FALSE(std::ifstream(f.dir.file("m/autotune.json")).good());
}

}  // namespace
}  // namespace rpl::test
