#include "store/sqlite_file_scan.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fmt/core.h>

namespace rpl::sqlite {

namespace {

uint32_t be16(const uint8_t* p) { return uint32_t{p[0]} << 8 | p[1]; }
uint32_t be32(const uint8_t* p) { return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3]; }

// A varint of the file format (1 to 9 bytes, big-endian groups of 7 bits, the ninth byte whole); nullptr when it
// runs past `end`.
const uint8_t* read_varint(const uint8_t* p, const uint8_t* end, uint64_t& v) {
  v = 0;
  for (int i = 0; i < 8; ++i) {
    if (p >= end) return nullptr;
    const uint8_t b = *p++;
    v = (v << 7) | (b & 0x7f);
    if (!(b & 0x80)) return p;
  }
  if (p >= end) return nullptr;
  v = (v << 8) | *p++;
  return p;
}

// A big-endian two's-complement integer of serial type 1..6 (1, 2, 3, 4, 6 or 8 bytes).
inline int64_t read_int(const uint8_t* p, uint64_t type) {
  switch (type) {
    case 1: return static_cast<int8_t>(p[0]);
    case 2: return static_cast<int16_t>(be16(p));
    case 3: return static_cast<int32_t>(uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8) >> 8;
    case 4: return static_cast<int32_t>(be32(p));
    case 5: return int64_t{static_cast<int16_t>(be16(p))} * 4294967296LL + be32(p + 2);
    default: return static_cast<int64_t>(uint64_t{be32(p)} << 32 | be32(p + 4));
  }
}

constexpr uint8_t kInteriorTablePage = 0x05, kLeafTablePage = 0x0d;
constexpr std::size_t kMaxDepth = 40;  // a B-tree of 2^31 pages is far shallower; deeper is a malformed file

[[noreturn]] void unsupported(const std::string& why) { throw FileScanUnsupported(why); }

}  // namespace

DatabaseFile::DatabaseFile(Db& db) : db_(db) {
  // The read transaction first, so that the file cannot change under the scan (rollback-journal mode: a
  // writer cannot commit while a reader holds its shared lock).
  read_lock_.emplace(db_, "SELECT 1 FROM sqlite_schema");
  if (!read_lock_->step()) unsupported("the schema is empty");
  const char* name = sqlite3_db_filename(db_.handle(), "main");
  if (!name || !*name) unsupported("no database file (in memory)");
  const std::string path = name;
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) unsupported("the file cannot be opened again");
  struct stat st {};
  uint8_t h[100];
  if (::fstat(fd_, &st) != 0 || ::pread(fd_, h, sizeof h, 0) != static_cast<ssize_t>(sizeof h) ||
      std::memcmp(h, "SQLite format 3", 16) != 0)
    unsupported("no SQLite header");
  page_size_ = be16(h + 16) == 1 ? 65536 : be16(h + 16);
  if (page_size_ < 512 || page_size_ > 65536 || (page_size_ & (page_size_ - 1)) != 0) unsupported("page size");
  usable_size_ = page_size_ - h[20];
  if (usable_size_ < 480) unsupported("reserved bytes per page");
  // Read and write versions 1: rollback journal (read under the lock above). 2: WAL, whose committed pages
  // may still be in "-wal" (the reader opens such a file immutable only where no "-wal" exists).
  const bool rollback = h[18] == 1 && h[19] == 1;
  const bool wal_without_log = h[18] == 2 && h[19] == 2 && ::access((path + "-wal").c_str(), F_OK) != 0;
  if (!rollback && !wal_without_log) unsupported("a WAL database with its -wal file, or an unknown file version");
  const uint64_t file_pages = static_cast<uint64_t>(st.st_size) / page_size_;
  const uint32_t header_pages = be32(h + 28);
  const bool header_count_valid = header_pages != 0 && std::memcmp(h + 24, h + 92, 4) == 0;
  const uint64_t pages = header_count_valid ? header_pages : file_pages;
  if (pages > file_pages || pages > 0xffffffffu) unsupported("the file is shorter than its header says");
  page_count_ = static_cast<uint32_t>(pages);
}

DatabaseFile::~DatabaseFile() {
  if (fd_ >= 0) ::close(fd_);
}

void DatabaseFile::read_page(uint32_t page, std::vector<uint8_t>& out) const {
  if (page < 1 || page > page_count_) unsupported(fmt::format("page {} is outside the file", page));
  out.resize(page_size_);
  std::size_t done = 0;
  const off_t offset = static_cast<off_t>(page - 1) * page_size_;
  while (done < page_size_) {
    const ssize_t n = ::pread(fd_, out.data() + done, page_size_ - done, offset + static_cast<off_t>(done));
    if (n <= 0) unsupported(fmt::format("page {} cannot be read", page));
    done += static_cast<std::size_t>(n);
  }
}

uint32_t DatabaseFile::rowid_table_root(const std::string& table) {
  Stmt s(db_, "SELECT type, rootpage, sql FROM sqlite_schema WHERE name = ?1");
  s.bind(1, std::string_view(table));
  if (!s.step() || s.text(0) != "table" || s.type(1) != SQLITE_INTEGER) unsupported(table + " is not a table");
  const int64_t root = s.i64(1);
  std::string sql(s.text(2));
  std::transform(sql.begin(), sql.end(), sql.begin(), [](unsigned char c) { return std::toupper(c); });
  if (root < 2 || root > page_count_ || sql.find("VIRTUAL") != std::string::npos ||
      sql.find("WITHOUT ROWID") != std::string::npos)
    unsupported(table + " is not an ordinary rowid table");
  // Generated (and other hidden) columns are not stored as the declared columns are.
  Stmt x(db_, fmt::format("PRAGMA table_xinfo(\"{}\")", table));
  while (x.step())
    if (x.i64(6) != 0) unsupported(table + " has generated or hidden columns");
  return static_cast<uint32_t>(root);
}

RowidTableScan::RowidTableScan(const DatabaseFile& file, uint32_t root_page, int max_column)
    : file_(file), root_(root_page), values_(static_cast<std::size_t>(max_column) + 1) {}

// From `page` down to its left-most leaf, pushing the interior pages on the way.
void RowidTableScan::descend(uint32_t page) {
  for (;;) {
    if (++pages_read_ > file_.page_count() || path_.size() >= kMaxDepth) unsupported("the B-tree has a cycle");
    const std::size_t header = page == 1 ? 100 : 0;
    std::vector<uint8_t>& buffer = leaf_;
    file_.read_page(page, buffer);
    const uint8_t type = buffer[header];
    if (type == kLeafTablePage) {
      leaf_cells_ = be16(&buffer[header + 3]);
      leaf_next_ = 0;
      leaf_header_ = header + 8;
      if (leaf_header_ + 2 * std::size_t{leaf_cells_} > file_.usable_size()) unsupported("a leaf page's cell count");
      return;
    }
    if (type != kInteriorTablePage) unsupported(fmt::format("page {} is not a table B-tree page", page));
    Level& level = path_.emplace_back();
    std::swap(level.page, buffer);  // reuses no buffer; interior pages are few
    level.number = page;
    level.cells = be16(&level.page[header + 3]);
    if (header + 12 + 2 * std::size_t{level.cells} > file_.usable_size()) unsupported("an interior page's cell count");
    level.next = 0;
    page = 0;
    // The first child (or the right-most pointer of a page without cells).
    if (level.cells == 0) {
      page = be32(&level.page[header + 8]);
      level.next = 1;
    } else {
      const std::size_t cell = be16(&level.page[header + 12]);
      if (cell + 4 > file_.usable_size()) unsupported("an interior cell pointer");
      page = be32(&level.page[cell]);
      level.next = 1;
    }
  }
}

bool RowidTableScan::next_leaf() {
  while (!path_.empty()) {
    Level& level = path_.back();
    if (level.next > level.cells) {
      path_.pop_back();
      continue;
    }
    const std::size_t header = level.number == 1 ? 100 : 0;
    uint32_t child = 0;
    if (level.next == level.cells) {
      child = be32(&level.page[header + 8]);
    } else {
      const std::size_t cell = be16(&level.page[header + 12 + 2 * std::size_t{level.next}]);
      if (cell + 4 > file_.usable_size()) unsupported("an interior cell pointer");
      child = be32(&level.page[cell]);
    }
    ++level.next;
    descend(child);
    return true;
  }
  return false;
}

bool RowidTableScan::next() {
  if (!started_) {
    started_ = true;
    descend(root_);
  }
  while (!done_) {
    if (leaf_next_ < leaf_cells_) {
      const std::size_t usable = file_.usable_size();
      const std::size_t cell = be16(&leaf_[leaf_header_ + 2 * std::size_t{leaf_next_++}]);
      if (cell < leaf_header_ || cell >= usable) unsupported("a leaf cell pointer");
      const uint8_t* end = leaf_.data() + usable;
      uint64_t payload = 0, key = 0;
      const uint8_t* p = read_varint(leaf_.data() + cell, end, payload);
      if (p) p = read_varint(p, end, key);
      if (!p) unsupported("a leaf cell");
      rowid_ = static_cast<int64_t>(key);
      // How much of the payload is on this page (the file format's formula); the rest is on overflow pages.
      const uint64_t u = usable, x = u - 35;
      uint64_t local = payload;
      if (payload > x) {
        const uint64_t m = ((u - 12) * 32 / 255) - 23, k = m + ((payload - m) % (u - 4));
        local = k <= x ? k : m;
      }
      if (static_cast<uint64_t>(end - p) < local) unsupported("a cell runs past its page");
      decode(p, static_cast<std::size_t>(local), payload);
      return true;
    }
    if (!next_leaf()) done_ = true;
  }
  return false;
}

// The record format: a header (its size, then one serial type per column), then the values.
void RowidTableScan::decode(const uint8_t* payload, std::size_t local_bytes, uint64_t total_bytes) {
  const uint8_t* end = payload + local_bytes;
  uint64_t header_size = 0;
  const uint8_t* types = read_varint(payload, end, header_size);
  if (!types || header_size > local_bytes || header_size > total_bytes) unsupported("a record header");
  const uint8_t* types_end = payload + header_size;
  const uint8_t* data = types_end;
  for (StoredValue& v : values_) {
    if (types >= types_end) {
      v = {StoredValue::Absent, 0};
      continue;
    }
    uint64_t type = *types;
    if (type < 0x80) {
      ++types;  // the usual one-byte serial type
    } else {
      types = read_varint(types, types_end, type);
      if (!types) unsupported("a record header");
    }
    static constexpr uint8_t kIntegerBytes[7] = {0, 1, 2, 3, 4, 6, 8};
    uint64_t size = 0;
    if (type == 0) {
      v = {StoredValue::Null, 0};
    } else if (type <= 6) {
      size = kIntegerBytes[type];
      if (static_cast<uint64_t>(end - data) < size) unsupported("a value on an overflow page");
      v = {StoredValue::Integer, read_int(data, type)};
    } else if (type == 7) {
      size = 8;
      v = {StoredValue::Other, 0};
    } else if (type == 8 || type == 9) {
      v = {StoredValue::Integer, static_cast<int64_t>(type - 8)};
    } else if (type >= 12) {
      size = (type - 12) / 2;
      v = {StoredValue::Other, 0};
    } else {
      unsupported("a reserved serial type");
    }
    if (static_cast<uint64_t>(end - data) < size) unsupported("a value on an overflow page");
    data += size;
  }
}

}  // namespace rpl::sqlite
