// Integers from outside JSON (support/json_integer.hpp): nlohmann's get<Int>() on a floating-point value is a
// plain cast, undefined beyond Int's range; fuzz_rocpd_sql found 1e308 in an agent's extdata so (issue 19).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <limits>
#include <string>

#include "analysis/rank_summary.hpp"
#include "app/rank_summary_file.hpp"
#include "report/multi_rank_report.hpp"
#include "store/rocpd_reader.hpp"
#include "support/checked_math.hpp"
#include "support/errors.hpp"
#include "support/json_integer.hpp"
#include "testing/fixtures.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {

using nlohmann::json;

TEST(JsonInteger, IntegersInRangeAndExactFloats) {
  EXPECT_EQ(json_integer<int64_t>(json(-7)), -7);
  EXPECT_EQ(json_integer<uint32_t>(json(4000000000u)), 4000000000u);
  EXPECT_EQ(json_integer<int64_t>(json(3.0)), 3) << "a float that holds an integer";
  EXPECT_EQ(json_integer<int64_t>(json(-0.0)), 0);
  EXPECT_EQ(json_integer<int64_t>(json(-9223372036854775808.0)), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(json_integer<uint64_t>(json(std::numeric_limits<uint64_t>::max())), std::numeric_limits<uint64_t>::max());
}

TEST(JsonInteger, EverythingElseIsNoInteger) {
  EXPECT_FALSE(json_integer<int64_t>(json(1e308)));
  EXPECT_FALSE(json_integer<int64_t>(json(-1e19)));
  EXPECT_FALSE(json_integer<int64_t>(json(9223372036854775808.0))) << "2^63: one past int64";
  EXPECT_FALSE(json_integer<uint64_t>(json(18446744073709551616.0))) << "2^64";
  EXPECT_FALSE(json_integer<uint64_t>(json(-1)));
  EXPECT_FALSE(json_integer<uint32_t>(json(4294967296LL)));
  EXPECT_FALSE(json_integer<uint32_t>(json(-0.5)));
  EXPECT_FALSE(json_integer<int64_t>(json(2.5)));
  EXPECT_FALSE(json_integer<int64_t>(json(std::numeric_limits<double>::infinity())));
  EXPECT_FALSE(json_integer<int64_t>(json("12")));
  EXPECT_FALSE(json_integer<int64_t>(json(true)));
  EXPECT_FALSE(json_integer<int64_t>(json(nullptr)));
  try {
    json_integer_or_throw<int64_t>(json(6.5e300), "pid");
    ADD_FAILURE() << "must throw";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("pid"), std::string::npos) << e.what();
  }
}

TEST(CheckedDoubleTo, TruncatesInRangeAndRefusesWhatACastCouldNotHold) {
  // The conversion under json_integer and the ncu CSV reader's integer fields.
  EXPECT_EQ(checked_double_to<int64_t>(12.7), 12);
  EXPECT_EQ(checked_double_to<int64_t>(-12.7), -12);
  EXPECT_EQ(checked_double_to<int64_t>(-9223372036854775808.0), std::numeric_limits<int64_t>::min());
  EXPECT_FALSE(checked_double_to<int64_t>(9223372036854775808.0)) << "2^63";
  EXPECT_FALSE(checked_double_to<int64_t>(6.6e82));
  EXPECT_FALSE(checked_double_to<int64_t>(std::nan("")));
  EXPECT_FALSE(checked_double_to<int64_t>(-std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(checked_double_to<uint32_t>(-1.0));
  EXPECT_EQ(checked_double_to<uint32_t>(4294967295.0), 4294967295u);
  EXPECT_FALSE(checked_double_to<uint32_t>(4294967296.0));
}

TEST(JsonInteger, AgentLimitsBeyondRangeInATraceAreUnknownNotUndefined) {
  test::TempDir dir;
  const std::string path = test::make_fixture_db(dir.path());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_info_agent%'",
                               -1, &s, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  const std::string table = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  sqlite3_finalize(s);
  const std::string sql = "UPDATE \"" + table + "\" SET extdata = '{\"cu_count\": -4.2e301, \"simd_per_cu\": 4.0, "
                          "\"wave_front_size\": 32.5, \"max_waves_per_simd\": 16}' WHERE type = 'GPU'";
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
  const Trace t = rocpd::read_databases({path});
  bool seen = false;
  for (const Agent& a : t.agents) {
    if (!a.is_gpu) continue;
    seen = true;
    EXPECT_EQ(a.cu_count, 0u) << "out of range: unknown";
    EXPECT_EQ(a.simd_per_cu, 4u) << "4.0 is 4";
    EXPECT_EQ(a.wave_front_size, 0u) << "32.5 is no integer";
    EXPECT_EQ(a.max_waves_per_simd, 16u);
  }
  EXPECT_TRUE(seen);
}

TEST(JsonInteger, RankSummaryWithAFloatBeyondRangeIsBadInputNamingTheField) {
  analysis::RankSummary r;
  r.names = {""};
  r.segments.resize(1);
  json doc = app::rank_summaries_document({r});
  ASSERT_EQ(app::rank_summaries_from_document(doc, "ranks.json").size(), 1u) << "the document reads back";
  doc["ranks"][0]["pid"] = 7.7e300;
  try {
    app::rank_summaries_from_document(doc, "ranks.json");
    ADD_FAILURE() << "must throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::InputInvalid);
    EXPECT_NE(std::string(e.what()).find("ranks.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("pid"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rpl
