#include "store/rocpd_counters_read.hpp"

#include <fmt/core.h>

#include <cmath>
#include <unordered_map>

#include "support/errors.hpp"
#include "support/log.hpp"

namespace rpl::rocpd {

std::size_t read_counters(Trace& trace, sqlite::Db& db, const CounterReadScope& scope) {
  const TableSet& set = *scope.set;
  if (!set.has("pmc_event") || !set.has("info_pmc") || !set.has("kernel_dispatch")) return 0;
  Columns pe(db, set.table("pmc_event"));
  Columns pi(db, set.table("info_pmc"));
  Columns kd(db, set.table("kernel_dispatch"));
  pe.require(db, {"event_id", "pmc_id", "value"});
  pi.require(db, {"id", "name"});
  if (!kd.has("event_id")) {
    log::warn("{}: {} has no event_id column: its counters cannot be matched to dispatches", db.path(), kd.table());
    return 0;
  }
  if (!sqlite::query_int(db, fmt::format("SELECT EXISTS (SELECT 1 FROM \"{}\")", pe.table()))) return 0;

  const bool by_guid = !scope.guid.empty();
  auto guid_eq = [&](const Columns& a, std::string_view alias_a, const Columns& b, std::string_view alias_b) {
    return by_guid && a.has("guid") && b.has("guid") ? fmt::format(" AND {}.guid = {}.guid", alias_a, alias_b)
                                                     : std::string();
  };
  std::string where = pe.has("sample_id") ? " WHERE P.sample_id IS NULL" : " WHERE 1";
  if (by_guid && pe.has("guid")) where += " AND P.guid = :guid";
  std::string sql = fmt::format(
      "SELECT K.dispatch_id, I.name, SUM(P.value), SUM(typeof(P.value) NOT IN ('integer', 'real')), MIN(P.value) FROM \"{}\" P JOIN \"{}\" I ON I.id = P.pmc_id{} "
      "JOIN \"{}\" K ON K.event_id = P.event_id{}{} GROUP BY K.dispatch_id, I.name",
      pe.table(), pi.table(), guid_eq(pi, "I", pe, "P"), kd.table(), guid_eq(kd, "K", pe, "P"), where);
  sqlite::Stmt s(db, sql);
  if (int index = s.parameter_index(":guid"); index > 0) s.bind(index, std::string_view(scope.guid));

  std::unordered_map<int64_t, Index> dispatch_index;
  dispatch_index.reserve(trace.dispatches.size() - scope.first_dispatch);
  for (std::size_t i = scope.first_dispatch; i < trace.dispatches.size(); ++i)
    dispatch_index.emplace(trace.dispatches[i].dispatch_id, static_cast<Index>(i));

  std::unordered_map<std::string, Index> names;
  std::size_t added = 0, unmatched = 0;
  while (s.step()) {
    auto it = dispatch_index.find(s.i64(0));
    if (it == dispatch_index.end()) {
      ++unmatched;  // a dispatch dropped by --lenient
      continue;
    }
    std::string name(s.text(1));
    auto n = names.find(name);
    if (n == names.end()) n = names.emplace(name, trace.strings.intern(name)).first;
    // Hardware counters are 64-bit counts: a value that is not a number, not finite, negative or beyond
    // 2^64 is damaged data, which would otherwise become an infinite or null metric downstream.
    const double value = s.f64(2);
    // Checked per row (MIN) as well as summed: -5 beside 8192 would otherwise pass as 8187.
    if (s.i64(3) != 0 || !std::isfinite(value) || value < 0 || value > 0x1p64 || s.f64(4) < 0) {
      std::string message =
          fmt::format("{}: counter {} of dispatch {} has value {}, not a count in 0..2^64", db.path(), name,
                      s.i64(0), s.i64(3) != 0 ? std::string("that is not a number")
                                             : fmt::format("{}", s.f64(4) < 0 ? s.f64(4) : value));
      if (!scope.lenient) throw Error(ExitCode::InputInvalid, message + " (--lenient drops such values)");
      log::warn("{}; dropped", message);
      continue;
    }
    trace.counters.push_back(CounterSample{it->second, n->second, value});
    ++added;
  }
  if (unmatched)
    log::warn("{}: {} counter values belong to dispatches that were not read; they are ignored", db.path(), unmatched);
  return added;
}

}  // namespace rpl::rocpd
