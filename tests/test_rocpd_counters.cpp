// Hardware counters in rocpd: the reader's Trace::counters against the counters_collection view (the
// rocprofv3 definition, evaluated by SQLite), several processes, schema variants, databases without the
// pmc tables, and append_counters round trips and failures.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "store/rocpd_counters_append.hpp"
#include "store/rocpd_reader.hpp"
#include "store/rocpd_schema.hpp"
#include "store/rocpd_writer.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"
#include "testing/counter_trace.hpp"
#include "testing/fixtures.hpp"
#include "testing/sql.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {

using rocpd::CounterValue;
using test::FixtureSpec;
using test::SqlFile;
using test::TempDir;

constexpr const char* kSuffix = "_0198a0b1_2c3d_7e4f_8a9b_0c1d2e3f4a5b";

// (pid, dispatch id, counter) -> value
using CounterMap = std::map<std::tuple<int64_t, int64_t, std::string>, double>;

CounterMap counters_of(const Trace& t) {
  CounterMap m;
  for (const CounterSample& c : t.counters) {
    EXPECT_LT(c.dispatch, t.dispatches.size());
    if (c.dispatch >= t.dispatches.size()) continue;
    const Dispatch& d = t.dispatches[c.dispatch];
    auto [it, added] = m.emplace(std::make_tuple(t.processes[d.process].pid, d.dispatch_id, t.strings.at(c.counter)), c.value);
    EXPECT_TRUE(added) << "two samples of dispatch " << d.dispatch_id << " " << t.strings.at(c.counter);
  }
  return m;
}

// What SQLite's counters_collection view (the rocpd definition of summed counters) says.
CounterMap counters_collection(const std::string& path) {
  SqlFile db(path);
  CounterMap m;
  for (auto& row : db.rows("SELECT P.pid, C.dispatch_id, C.counter_name, C.value FROM counters_collection C "
                           "JOIN rocpd_info_process P ON P.guid = C.guid"))
    m[{std::stoll(row[0]), std::stoll(row[1]), row[2]}] = std::stod(row[3]);
  return m;
}

FixtureSpec second_process() {
  FixtureSpec spec;
  spec.file_name = "second_results.db";
  spec.guid = "0198a0b1-2c3d-7e4f-8a9b-00000000beef";
  spec.pid = 4343;
  spec.kernels_per_stream = 2;  // dispatch ids 1..5 collide with the first process's
  return spec;
}

}  // namespace

TEST(RocpdCounterReader, ReadsTheSummedValuesOfCountersCollection) {
  TempDir dir;
  std::string path = test::make_fixture_db(dir.path());
  Trace t = rocpd::read_databases({path});
  CounterMap expected = counters_collection(path);
  ASSERT_EQ(expected.size(), 14u);  // 7 dispatches x 2 counters
  EXPECT_EQ(counters_of(t), expected);
  // The fixture writes SQ_WAVES as 8192 + 8192 and TCC_HIT as 100 + 10 x dispatch id.
  EXPECT_EQ(expected.at({4242, 3, "SQ_WAVES"}), 16384.0);
  EXPECT_EQ(expected.at({4242, 3, "TCC_HIT"}), 130.0);
}

TEST(RocpdCounterReader, SeveralDatabasesKeepTheirOwnDispatches) {
  TempDir dir;
  std::string a = test::make_fixture_db(dir.path());
  std::string b = test::make_fixture_db(dir.path(), second_process());
  Trace t = rocpd::read_databases({a, b});
  CounterMap expected = counters_collection(a);
  for (auto& [key, value] : counters_collection(b)) expected[key] = value;
  ASSERT_EQ(expected.size(), 14u + 10u);
  EXPECT_EQ(counters_of(t), expected);
}

TEST(RocpdCounterReader, WithoutPmcTablesThereAreNoCountersAndNoError) {
  TempDir dir;
  std::string path = test::make_fixture_db(dir.path());
  {
    SqlFile db(path);
    for (auto& row : db.rows("SELECT name FROM sqlite_master WHERE type = 'view'")) db.exec("DROP VIEW \"" + row[0] + "\"");
    db.exec(std::string("DROP TABLE rocpd_pmc_event") + kSuffix + "; DROP TABLE rocpd_info_pmc" + kSuffix);
  }
  Trace t = rocpd::read_databases({path});
  EXPECT_EQ(t.dispatches.size(), 7u);
  EXPECT_TRUE(t.counters.empty());
}

TEST(RocpdCounterReader, SpmSamplesAndValuesOfDroppedDispatchesAreSkipped) {
  TempDir dir;
  std::string path = test::make_fixture_db(dir.path());
  {
    SqlFile db(path);
    std::string pe = std::string("rocpd_pmc_event") + kSuffix;
    db.exec("ALTER TABLE " + pe + " ADD COLUMN sample_id INTEGER");  // schema 3.0.3
    // An SPM sample on dispatch 1's event: not a dispatch counter.
    db.exec("INSERT INTO " + pe + " (event_id, pmc_id, value, sample_id) SELECT event_id, 7, 1e9, 1 FROM "
            "rocpd_kernel_dispatch" + std::string(kSuffix) + " WHERE dispatch_id = 1");
    // Dispatch 2 ends before it starts: --lenient drops it, and its counters with it.
    db.exec(std::string("UPDATE rocpd_kernel_dispatch") + kSuffix + " SET \"end\" = start - 1 WHERE dispatch_id = 2");
  }
  rocpd::ReadOptions lenient;
  lenient.lenient = true;
  Trace t = rocpd::read_databases({path}, lenient);
  CounterMap got = counters_of(t);
  EXPECT_EQ(got.size(), 12u);
  EXPECT_EQ(got.count({4242, 2, "SQ_WAVES"}), 0u);
  EXPECT_EQ(got.at({4242, 1, "SQ_WAVES"}), 16384.0);
}

TEST(RocpdCounterReader, WriteProcessRoundTripsTheCounters) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("sm_90", "NVIDIA H100 80GB HBM3", 132);
  Index k = b.kernel("triad");
  Index d0 = b.dispatch(k, gpu, 1000, 500), d1 = b.dispatch(k, gpu, 2000, 500);
  b.counters(d0, {{"dram__bytes_read.sum", 1e6}, {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 4096}});
  b.counters(d1, {{"dram__bytes_read.sum", 2e6}});
  b.trace().processes[0].guid = "0198a0b1-2c3d-7e4f-8a9b-0000000000c0";  // the writer needs a UUID
  TempDir dir;
  std::string path = dir.file("counters.db");
  rocpd::write_process(b.trace(), 0, path);
  Trace t = rocpd::read_databases({path});
  EXPECT_EQ(counters_of(t), (CounterMap{{{4242, 1, "dram__bytes_read.sum"}, 1e6},
                                        {{4242, 1, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"}, 4096},
                                        {{4242, 2, "dram__bytes_read.sum"}, 2e6}}));
  EXPECT_EQ(counters_collection(path), counters_of(t));
}

TEST(RocpdCountersAppend, ValuesAppendedAreReadBackSummed) {
  TempDir dir;
  FixtureSpec spec;
  spec.counters = false;
  std::string path = test::make_fixture_db(dir.path(), spec);
  std::vector<CounterValue> values = {{1, "SQ_INSTS_VALU_FMA_F32", 1000},
                                      {1, "SQ_INSTS_VALU_FMA_F32", 24},  // a second dimension row
                                      {1, "TCC_EA0_RDREQ_sum", 50},
                                      {4, "SQ_INSTS_VALU_FMA_F32", 7}};
  auto r = rocpd::append_counters(path, values);
  EXPECT_EQ(r.values_written, 4u);
  EXPECT_EQ(r.counters_added, 2u);
  CounterMap expected = {{{4242, 1, "SQ_INSTS_VALU_FMA_F32"}, 1024},
                         {{4242, 1, "TCC_EA0_RDREQ_sum"}, 50},
                         {{4242, 4, "SQ_INSTS_VALU_FMA_F32"}, 7}};
  EXPECT_EQ(counters_of(rocpd::read_databases({path})), expected);
  EXPECT_EQ(counters_collection(path), expected);  // AMD's own view sees them too
  SqlFile db(path);
  EXPECT_EQ(db.value(std::string("SELECT agent_id || ' ' || block || ' ' || guid FROM rocpd_info_pmc") + kSuffix +
                     " WHERE name = 'TCC_EA0_RDREQ_sum'"),
            "2 TCC 0198a0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5b");
}

TEST(RocpdCountersAppend, ReusesRegisteredCountersAndAddsToExistingValues) {
  TempDir dir;
  std::string path = test::make_fixture_db(dir.path());  // SQ_WAVES 16384 on every dispatch
  std::vector<CounterValue> values = {{3, "SQ_WAVES", 1}, {3, "GRBM_COUNT", 99}};
  auto r = rocpd::append_counters(path, values);
  EXPECT_EQ(r.counters_added, 1u);  // SQ_WAVES (pmc 7 on agent 2) is reused
  CounterMap got = counters_of(rocpd::read_databases({path}));
  EXPECT_EQ(got.at({4242, 3, "SQ_WAVES"}), 16385.0);
  EXPECT_EQ(got.at({4242, 3, "GRBM_COUNT"}), 99.0);
  EXPECT_EQ(got.size(), 15u);
}

TEST(RocpdCountersAppend, PicksTheProcessByGuidWhenTheFileHoldsSeveral) {
  TempDir dir;
  std::string a = test::make_fixture_db(dir.path());
  std::string b = test::make_fixture_db(dir.path(), second_process());
  {
    SqlFile db(a);
    db.exec("ATTACH DATABASE '" + b + "' AS other");
    db.exec(rocpd::schema::tables_sql("0198a0b1-2c3d-7e4f-8a9b-00000000beef"));
    for (auto base : rocpd::schema::table_names()) {
      std::string table = "rocpd_" + std::string(base) + "_0198a0b1_2c3d_7e4f_8a9b_00000000beef";
      db.exec("INSERT INTO main." + table + " SELECT * FROM other." + table);
    }
  }
  std::vector<CounterValue> values = {{2, "X_COUNTER", 5}};
  try {
    rocpd::append_counters(a, values);
    FAIL() << "no error without a guid";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
    EXPECT_NE(std::string(e.what()).find("2 processes"), std::string::npos) << e.what();
  }
  rocpd::append_counters(a, values, "0198a0b1-2c3d-7e4f-8a9b-00000000beef");
  CounterMap got = counters_of(rocpd::read_databases({a}));
  EXPECT_EQ(got.at({4343, 2, "X_COUNTER"}), 5.0);
  EXPECT_EQ(got.count({4242, 2, "X_COUNTER"}), 0u);
}

TEST(RocpdCountersAppend, BadInputChangesNothing) {
  TempDir dir;
  std::string path = test::make_fixture_db(dir.path());
  const std::string before = test::read_file(path);
  auto expect_error = [&](std::vector<CounterValue> values, const std::string& guid, ExitCode code,
                          const std::string& text) {
    try {
      rocpd::append_counters(path, values, guid);
      ADD_FAILURE() << "no error for " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
    EXPECT_EQ(test::read_file(path), before) << text;
  };
  // A good value first: the whole call is rolled back.
  expect_error({{1, "GOOD", 1}, {999, "SQ_WAVES", 1}}, "", ExitCode::InputInvalid, "no dispatch with id 999");
  expect_error({{1, "SQ_WAVES", std::nan("")}}, "", ExitCode::InputInvalid, "SQ_WAVES");
  expect_error({{1, "SQ_WAVES", 1}}, "0198a0b1-2c3d-7e4f-8a9b-00000000dead", ExitCode::Usage, "00000000dead");
  try {
    rocpd::append_counters(dir.file("missing.db"), std::vector<CounterValue>{{1, "A", 1}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::InputMissing);
  }
}

}  // namespace rpl
