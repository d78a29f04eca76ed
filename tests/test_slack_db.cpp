// analyze --slack-db FILE (issue 32): the per-node earliest start, slack and critical-path flag in a SQLite table
// of our own instead of dag.json; a file that is not an earlier --slack-db output (a trace) is never replaced.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "testing/binary_files.hpp"
#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
#include "testing/sql.hpp"
#include "testing/tmpdir.hpp"

using namespace rpl::test;

TEST(SlackDb, OneRowPerNodeWithTheDagJsonPath) {
  TempDir dir;
  const std::string db = make_fixture_db(dir.path());
  const std::string slack = dir.file("slack.db");
  auto r = run_cli({"analyze", db, "-o", dir.file("out"), "--quiet", "--slack-db", slack});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto dag = nlohmann::json::parse(read_file(dir.file("out/dag.json")));
  SqlFile s(slack);
  EXPECT_EQ(s.rows("SELECT value FROM rpl_node_slack_info WHERE key = 'schema_version'"),
            (std::vector<std::vector<std::string>>{{"1.0"}}));
  EXPECT_EQ(s.rows("SELECT count(*) FROM rpl_node_slack")[0][0], std::to_string(dag["node_count"].get<int>()));
  // The nodes flagged on the path are dag.json's path, with zero slack; every slack is >= 0.
  EXPECT_EQ(s.rows("SELECT count(*) FROM rpl_node_slack WHERE on_critical_path = 1")[0][0],
            std::to_string(dag["critical_path"]["rows"].size()));
  EXPECT_EQ(s.rows("SELECT count(*) FROM rpl_node_slack WHERE on_critical_path = 1 AND slack_ns != 0")[0][0], "0");
  EXPECT_EQ(s.rows("SELECT count(*) FROM rpl_node_slack WHERE slack_ns < 0")[0][0], "0");
  // Names resolve through the view; the path's first node has the same id and name in both.
  const auto& first = dag["critical_path"]["rows"][0];
  const std::string name = dag["names"][first[1].get<int>()];
  EXPECT_EQ(s.rows("SELECT name FROM rpl_node_slack_named WHERE on_critical_path = 1 AND id = " +
                   std::to_string(first[3].get<int64_t>()) + " AND kind = 'dispatch'"),
            (std::vector<std::vector<std::string>>{{name}}));

  // A second run replaces its own earlier output.
  r = run_cli({"analyze", db, "-o", dir.file("out"), "--quiet", "--slack-db", slack});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(SlackDb, RefusesToReplaceATraceOrAnyOtherFile) {
  TempDir dir;
  const std::string db = make_fixture_db(dir.path());
  const std::string before = read_file(db);
  auto r = run_cli({"analyze", db, "-o", dir.file("out"), "--quiet", "--slack-db", db});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("not a --slack-db output"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(db), before);
  write_binary(dir.file("notes.txt"), to_bytes("keep me"));
  r = run_cli({"analyze", db, "-o", dir.file("out"), "--quiet", "--slack-db", dir.file("notes.txt")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(read_file(dir.file("notes.txt")), "keep me");
}
