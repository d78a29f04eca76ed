// Structured mutations of a valid rocpd database: the fuzzer's bytes choose rows, columns and values
// (integers from the edges of their ranges, reals such as inf, 1e300 and -0, NULL, text, blobs) to put into
// a fresh fixture trace (tests/testing/fixtures.hpp), which then goes through the whole analyze pipeline.
// The base database is built once in memory and copied per input with sqlite3_deserialize.
#include <sqlite3.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "harness.hpp"
#include "testing/fixtures.hpp"

namespace {

struct Base {
  std::vector<std::pair<std::string, std::vector<std::string>>> tables;  // table -> columns
  std::vector<unsigned char> image;
};

const Base& base() {
  static const Base b = [] {
    Base out;
    std::string path = rpl::test::make_fixture_db(rpl::fuzz::scratch_dir(), {});
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    // Small pages make the image a few times smaller (copied, written and read on every input).
    sqlite3_exec(db, "PRAGMA page_size = 512; VACUUM", nullptr, nullptr, nullptr);
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_%'", -1, &s, nullptr);
    while (sqlite3_step(s) == SQLITE_ROW) out.tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)), std::vector<std::string>{});
    sqlite3_finalize(s);
    for (auto& [table, columns] : out.tables) {
      sqlite3_prepare_v2(db, ("PRAGMA table_info(\"" + table + "\")").c_str(), -1, &s, nullptr);
      while (sqlite3_step(s) == SQLITE_ROW) columns.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 1)));
      sqlite3_finalize(s);
    }
    sqlite3_int64 size = 0;
    unsigned char* bytes = sqlite3_serialize(db, "main", &size, 0);
    out.image.assign(bytes, bytes + size);
    sqlite3_free(bytes);
    sqlite3_close(db);
    // The same trace is a seed of fuzz_rocpd_bytes (fuzz/seeds/rocpd/fixture.db).
    if (const char* seed = std::getenv("RPL_FUZZ_WRITE_SEED"))
      rpl::fuzz::write_bytes(seed, out.image.data(), out.image.size());
    return out;
  }();
  return b;
}

class Reader {
 public:
  Reader(const uint8_t* d, size_t n) : d_(d), n_(n) {}
  bool more() const { return i_ < n_; }
  uint64_t u64(int bytes) {
    uint64_t v = 0;
    for (int k = 0; k < bytes; ++k) v = (v << 8) | (i_ < n_ ? d_[i_++] : 0);
    return v;
  }

 private:
  const uint8_t* d_;
  size_t n_, i_ = 0;
};

void bind_value(sqlite3_stmt* s, int index, Reader& r) {
  static const int64_t kInts[] = {0, 1, -1, 2, 1LL << 30, 1LL << 31, (1LL << 32) - 1, 1LL << 32, 1LL << 62,
                                  (1LL << 62) + 1, std::numeric_limits<int64_t>::max(),
                                  std::numeric_limits<int64_t>::min(), -5000000000000000000LL, 5000000000000000000LL};
  static const double kReals[] = {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                  std::nan(""), 1e300, 1e308, -0.0, 0.5, 1e19, 4.6e18};
  switch (r.u64(1) % 6) {
    case 0: sqlite3_bind_int64(s, index, kInts[r.u64(1) % std::size(kInts)]); break;
    case 1: sqlite3_bind_int64(s, index, static_cast<int64_t>(r.u64(8))); break;
    case 2: sqlite3_bind_double(s, index, kReals[r.u64(1) % std::size(kReals)]); break;
    case 3: sqlite3_bind_null(s, index); break;
    case 4: {
      static const char* kTexts[] = {"", "GPU", "x\x1b[2J", "{\"cu_count\": 1e308}", "12", "1e3", "hipDeviceSynchronize",
                                     "{}", "SIGNAL", "WAIT"};
      sqlite3_bind_text(s, index, kTexts[r.u64(1) % std::size(kTexts)], -1, SQLITE_STATIC);
      break;
    }
    default: {
      unsigned char blob[4] = {static_cast<unsigned char>(r.u64(1)), 0, 0xff, 1};
      sqlite3_bind_blob(s, index, blob, sizeof blob, SQLITE_TRANSIENT);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Base& b = base();
  sqlite3* db = nullptr;
  sqlite3_open(":memory:", &db);
  unsigned char* image = static_cast<unsigned char*>(sqlite3_malloc64(b.image.size()));
  std::memcpy(image, b.image.data(), b.image.size());
  sqlite3_deserialize(db, "main", image, static_cast<sqlite3_int64>(b.image.size()),
                      static_cast<sqlite3_int64>(b.image.size()),
                      SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE);
  Reader r(data, size);
  for (int m = 0; m < 16 && r.more(); ++m) {
    const auto& [table, columns] = b.tables[r.u64(1) % b.tables.size()];
    if (columns.empty()) continue;
    const std::string& column = columns[r.u64(1) % columns.size()];
    std::string sql = r.u64(1) % 8 == 0
                          ? "DELETE FROM \"" + table + "\" WHERE rowid % 7 = ?"
                          : "UPDATE OR IGNORE \"" + table + "\" SET \"" + column + "\" = ? WHERE rowid % 5 = " +
                                std::to_string(r.u64(1) % 5);
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK) {
      bind_value(s, 1, r);
      sqlite3_step(s);  // constraint failures are fine: the mutation just does not apply
    }
    sqlite3_finalize(s);
  }
  // The mutated image goes to a file, as a trace the user gives would.
  sqlite3_int64 out_size = 0;
  unsigned char* out = sqlite3_serialize(db, "main", &out_size, 0);
  sqlite3_close(db);
  const std::string path = rpl::fuzz::scratch_dir() + "/mutated.db";
  rpl::fuzz::write_bytes(path, out, static_cast<size_t>(out_size));
  sqlite3_free(out);
  rpl::fuzz::analyze_and_check(path);
  return 0;
}
