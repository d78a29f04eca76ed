#pragma once
// The rocpd schema 3.0.0 (ROCm 7.0) as SQL text, written from the column lists in
// shared/reference/amd-profiling-stack.md §1.4-§1.6, plus the 3.0.1 rocpd_event_operation table.
// Tables carry the per-process suffix "_<guid with '_'>" and the guid column default; the views
// (un-suffixed pass-through views, then data and summary views) read the un-suffixed names, as
// rocprofv3's files do.
#include <string>
#include <string_view>
#include <vector>

namespace rpl::rocpd::schema {

// The table-name suffix of a process GUID: "_" + guid with '-' replaced by '_'.
std::string table_suffix(std::string_view guid);

// The base names (without "rocpd_" and suffix) of every table we create, in creation order.
const std::vector<std::string_view>& table_names();

// CREATE TABLE statements for one process GUID.
std::string tables_sql(std::string_view guid);
// CREATE VIEW rocpd_<name> AS SELECT * FROM rocpd_<name>_<uuid>, for every table.
std::string passthrough_views_sql(std::string_view guid);
// The data views (kernels, memory_copies, regions, kernel_symbols, counters_collection, ...) and the
// summary views (top_kernels, busy, top). They read the pass-through views.
std::string data_views_sql();

// The data and summary views created by data_views_sql(), in creation order.
const std::vector<std::string_view>& data_view_names();

}  // namespace rpl::rocpd::schema
