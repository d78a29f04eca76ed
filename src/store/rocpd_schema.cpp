#include "store/rocpd_schema.hpp"

namespace rpl::rocpd::schema {

namespace {

// {{uuid}} is the table suffix, {{guid}} the process GUID (the default of every guid column).
// Defaults are written with single quotes; rocprofv3's files spell them "{}" (legacy double-quoted
// string literals), which SQLite reads as the same value.
constexpr std::string_view kTables = R"SQL(
CREATE TABLE IF NOT EXISTS rocpd_metadata{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  tag TEXT NOT NULL,
  value TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS rocpd_string{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  string TEXT NOT NULL UNIQUE ON CONFLICT ABORT);

CREATE TABLE IF NOT EXISTS rocpd_info_node{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  hash BIGINT NOT NULL UNIQUE,
  machine_id TEXT NOT NULL UNIQUE,
  system_name TEXT,
  hostname TEXT,
  release TEXT,
  version TEXT,
  hardware_name TEXT,
  domain_name TEXT);

CREATE TABLE IF NOT EXISTS rocpd_info_process{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  nid INTEGER NOT NULL,
  ppid INTEGER,
  pid INTEGER NOT NULL,
  init BIGINT,
  fini BIGINT,
  start BIGINT,
  "end" BIGINT,
  command TEXT,
  environment JSONB DEFAULT '{}' NOT NULL,
  extdata JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY (nid) REFERENCES rocpd_info_node{{uuid}} (id) ON UPDATE CASCADE);

CREATE TABLE IF NOT EXISTS rocpd_info_thread{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  nid INTEGER NOT NULL,
  ppid INTEGER,
  pid INTEGER NOT NULL,
  tid INTEGER NOT NULL,
  name TEXT,
  start BIGINT,
  "end" BIGINT,
  extdata JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY (nid) REFERENCES rocpd_info_node{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (pid) REFERENCES rocpd_info_process{{uuid}} (id) ON UPDATE CASCADE);

CREATE TABLE IF NOT EXISTS rocpd_info_agent{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  nid INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  type TEXT CHECK (type IN ('CPU', 'GPU')),
  absolute_index INTEGER,
  logical_index INTEGER,
  type_index INTEGER,
  uuid INTEGER,
  name TEXT,
  model_name TEXT,
  vendor_name TEXT,
  product_name TEXT,
  user_name TEXT,
  extdata JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY (nid) REFERENCES rocpd_info_node{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (pid) REFERENCES rocpd_info_process{{uuid}} (id) ON UPDATE CASCADE);

CREATE TABLE IF NOT EXISTS rocpd_info_queue{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  nid INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  name TEXT,
  extdata JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY (nid) REFERENCES rocpd_info_node{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (pid) REFERENCES rocpd_info_process{{uuid}} (id) ON UPDATE CASCADE);

CREATE TABLE IF NOT EXISTS rocpd_info_stream{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  nid INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  name TEXT,
  extdata JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY (nid) REFERENCES rocpd_info_node{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (pid) REFERENCES rocpd_info_process{{uuid}} (id) ON UPDATE CASCADE);

CREATE TABLE IF NOT EXISTS rocpd_info_pmc{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  nid INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  agent_id INTEGER,
  target_arch TEXT CHECK (target_arch IN ('CPU', 'GPU')),
  event_code INT,
  instance_id INTEGER,
  name TEXT NOT NULL,
  symbol TEXT NOT NULL,
  description TEXT,
  long_description TEXT DEFAULT '',
  component TEXT,
  units TEXT DEFAULT '',
  value_type TEXT CHECK (value_type IN ('ABS', 'ACCUM', 'RELATIVE')),
  block TEXT,
  expression TEXT,
  is_constant INTEGER,
  is_derived INTEGER,
  extdata JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY (nid) REFERENCES rocpd_info_node{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (pid) REFERENCES rocpd_info_process{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (agent_id) REFERENCES rocpd_info_agent{{uuid}} (id) ON UPDATE CASCADE);

CREATE TABLE IF NOT EXISTS rocpd_info_code_object{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  nid INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  agent_id INTEGER,
  uri TEXT,
  load_base BIGINT,
  load_size BIGINT,
  load_delta BIGINT,
  storage_type TEXT CHECK (storage_type IN ('FILE', 'MEMORY')),
  extdata JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY (nid) REFERENCES rocpd_info_node{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (pid) REFERENCES rocpd_info_process{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (agent_id) REFERENCES rocpd_info_agent{{uuid}} (id) ON UPDATE CASCADE);

CREATE TABLE IF NOT EXISTS rocpd_info_kernel_symbol{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  nid INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  code_object_id INTEGER NOT NULL,
  kernel_name TEXT,
  display_name TEXT,
  kernel_object INTEGER,
  kernarg_segment_size INTEGER,
  kernarg_segment_alignment INTEGER,
  group_segment_size INTEGER,
  private_segment_size INTEGER,
  sgpr_count INTEGER,
  arch_vgpr_count INTEGER,
  accum_vgpr_count INTEGER,
  extdata JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY (nid) REFERENCES rocpd_info_node{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (pid) REFERENCES rocpd_info_process{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (code_object_id) REFERENCES rocpd_info_code_object{{uuid}} (id) ON UPDATE CASCADE);

CREATE TABLE IF NOT EXISTS rocpd_track{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  nid INTEGER NOT NULL,
  pid INTEGER,
  tid INTEGER,
  name_id INTEGER,
  extdata JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY (nid) REFERENCES rocpd_info_node{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (pid) REFERENCES rocpd_info_process{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (tid) REFERENCES rocpd_info_thread{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (name_id) REFERENCES rocpd_string{{uuid}} (id) ON UPDATE CASCADE);

CREATE TABLE IF NOT EXISTS rocpd_event{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  category_id INTEGER,
  stack_id INTEGER,
  parent_stack_id INTEGER,
  correlation_id INTEGER,
  call_stack JSONB DEFAULT '{}' NOT NULL,
  line_info JSONB DEFAULT '{}' NOT NULL,
  extdata JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY (category_id) REFERENCES rocpd_string{{uuid}} (id) ON UPDATE CASCADE);

CREATE TABLE IF NOT EXISTS rocpd_arg{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  event_id INTEGER NOT NULL,
  position INTEGER NOT NULL,
  type TEXT NOT NULL,
  name TEXT NOT NULL,
  value TEXT,
  extdata JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY (event_id) REFERENCES rocpd_event{{uuid}} (id) ON UPDATE CASCADE);

CREATE TABLE IF NOT EXISTS rocpd_pmc_event{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  event_id INTEGER,
  pmc_id INTEGER NOT NULL,
  value REAL DEFAULT 0.0,
  extdata JSONB DEFAULT '{}',
  FOREIGN KEY (pmc_id) REFERENCES rocpd_info_pmc{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (event_id) REFERENCES rocpd_event{{uuid}} (id) ON UPDATE CASCADE);

CREATE TABLE IF NOT EXISTS rocpd_region{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  nid INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  tid INTEGER NOT NULL,
  start BIGINT NOT NULL,
  "end" BIGINT NOT NULL,
  name_id INTEGER NOT NULL,
  event_id INTEGER,
  extdata JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY (nid) REFERENCES rocpd_info_node{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (pid) REFERENCES rocpd_info_process{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (tid) REFERENCES rocpd_info_thread{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (name_id) REFERENCES rocpd_string{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (event_id) REFERENCES rocpd_event{{uuid}} (id) ON UPDATE CASCADE);

CREATE TABLE IF NOT EXISTS rocpd_sample{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  track_id INTEGER NOT NULL,
  timestamp BIGINT NOT NULL,
  event_id INTEGER,
  extdata JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY (track_id) REFERENCES rocpd_track{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (event_id) REFERENCES rocpd_event{{uuid}} (id) ON UPDATE CASCADE);

CREATE TABLE IF NOT EXISTS rocpd_kernel_dispatch{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  nid INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  tid INTEGER,
  agent_id INTEGER NOT NULL,
  kernel_id INTEGER NOT NULL,
  dispatch_id INTEGER NOT NULL,
  queue_id INTEGER NOT NULL,
  stream_id INTEGER NOT NULL,
  start BIGINT NOT NULL,
  "end" BIGINT NOT NULL,
  private_segment_size INTEGER,
  group_segment_size INTEGER,
  workgroup_size_x INTEGER NOT NULL,
  workgroup_size_y INTEGER NOT NULL,
  workgroup_size_z INTEGER NOT NULL,
  grid_size_x INTEGER NOT NULL,
  grid_size_y INTEGER NOT NULL,
  grid_size_z INTEGER NOT NULL,
  region_name_id INTEGER,
  event_id INTEGER,
  extdata JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY (nid) REFERENCES rocpd_info_node{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (pid) REFERENCES rocpd_info_process{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (tid) REFERENCES rocpd_info_thread{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (agent_id) REFERENCES rocpd_info_agent{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (kernel_id) REFERENCES rocpd_info_kernel_symbol{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (queue_id) REFERENCES rocpd_info_queue{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (stream_id) REFERENCES rocpd_info_stream{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (region_name_id) REFERENCES rocpd_string{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (event_id) REFERENCES rocpd_event{{uuid}} (id) ON UPDATE CASCADE);

CREATE TABLE IF NOT EXISTS rocpd_memory_copy{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  nid INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  tid INTEGER,
  start BIGINT NOT NULL,
  "end" BIGINT NOT NULL,
  name_id INTEGER NOT NULL,
  dst_agent_id INTEGER,
  dst_address INTEGER,
  src_agent_id INTEGER,
  src_address INTEGER,
  size INTEGER NOT NULL,
  queue_id INTEGER,
  stream_id INTEGER,
  region_name_id INTEGER,
  event_id INTEGER,
  extdata JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY (nid) REFERENCES rocpd_info_node{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (pid) REFERENCES rocpd_info_process{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (tid) REFERENCES rocpd_info_thread{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (name_id) REFERENCES rocpd_string{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (dst_agent_id) REFERENCES rocpd_info_agent{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (src_agent_id) REFERENCES rocpd_info_agent{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (stream_id) REFERENCES rocpd_info_stream{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (queue_id) REFERENCES rocpd_info_queue{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (region_name_id) REFERENCES rocpd_string{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (event_id) REFERENCES rocpd_event{{uuid}} (id) ON UPDATE CASCADE);

CREATE TABLE IF NOT EXISTS rocpd_memory_allocate{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  nid INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  tid INTEGER,
  agent_id INTEGER,
  type TEXT CHECK (type IN ('ALLOC', 'FREE', 'REALLOC', 'RECLAIM')),
  level TEXT CHECK (level IN ('REAL', 'VIRTUAL', 'SCRATCH')),
  start BIGINT NOT NULL,
  "end" BIGINT NOT NULL,
  address INTEGER,
  size INTEGER NOT NULL,
  queue_id INTEGER,
  stream_id INTEGER,
  event_id INTEGER,
  extdata JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY (nid) REFERENCES rocpd_info_node{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (pid) REFERENCES rocpd_info_process{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (tid) REFERENCES rocpd_info_thread{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (agent_id) REFERENCES rocpd_info_agent{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (stream_id) REFERENCES rocpd_info_stream{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (queue_id) REFERENCES rocpd_info_queue{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (event_id) REFERENCES rocpd_event{{uuid}} (id) ON UPDATE CASCADE);

-- Schema 3.0.1 addition (not in 3.0.0): GPU-side event signal/wait operations (barrier packets),
-- which give the critical path its GPU-recorded cross-stream edges. The column list follows the
-- 3.0.1 snapshots; type_id and issue_id are written as 0 by us (their meaning is not documented).
CREATE TABLE IF NOT EXISTS rocpd_event_operation{{uuid}} (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  guid TEXT DEFAULT '{{guid}}' NOT NULL,
  nid INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  tid INTEGER,
  agent_id INTEGER NOT NULL,
  event_obj INTEGER NOT NULL,
  type_id INTEGER NOT NULL,
  issue_id INTEGER NOT NULL,
  queue_id INTEGER NOT NULL,
  stream_id INTEGER NOT NULL,
  start BIGINT NOT NULL,
  "end" BIGINT NOT NULL,
  type TEXT CHECK (type IN ('WAIT', 'SIGNAL')),
  event_id INTEGER,
  FOREIGN KEY (nid) REFERENCES rocpd_info_node{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (pid) REFERENCES rocpd_info_process{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (tid) REFERENCES rocpd_info_thread{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (agent_id) REFERENCES rocpd_info_agent{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (queue_id) REFERENCES rocpd_info_queue{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (stream_id) REFERENCES rocpd_info_stream{{uuid}} (id) ON UPDATE CASCADE,
  FOREIGN KEY (event_id) REFERENCES rocpd_event{{uuid}} (id) ON UPDATE CASCADE);
)SQL";

// Data views. Joins match rows of one process by (id, guid), like rocprofv3's views; the column lists
// and their order are those of §1.6. Durations are ns except in top_kernels/top (us). Every view gives the
// rows AMD's view of the same name gives (tests/test_amd_rocpd_tools.cpp compares them): busy's WallTime is
// the span of all dispatches and copies, not the agent's; top_kernels/top average in whole ns (integer
// division) before the conversion to us; stream_args' pid is the OS pid and its extdata the stream's.
constexpr std::string_view kDataViews = R"SQL(
CREATE VIEW IF NOT EXISTS code_objects AS
SELECT CO.id, CO.guid, CO.nid, P.pid, A.absolute_index AS agent_abs_index, CO.uri, CO.load_base, CO.load_size,
       CO.load_delta, CO.storage_type AS storage_type_str,
       json_extract(CO.extdata, '$.size') AS code_object_size,
       json_extract(CO.extdata, '$.storage_type') AS storage_type,
       json_extract(CO.extdata, '$.memory_base') AS memory_base,
       json_extract(CO.extdata, '$.memory_size') AS memory_size
FROM rocpd_info_code_object CO
JOIN rocpd_info_agent A ON A.id = CO.agent_id AND A.guid = CO.guid
JOIN rocpd_info_process P ON P.id = CO.pid AND P.guid = CO.guid;

CREATE VIEW IF NOT EXISTS kernel_symbols AS
SELECT KS.id, KS.guid, KS.nid, KS.pid, KS.code_object_id, KS.kernel_name, KS.display_name, KS.kernel_object,
       KS.kernarg_segment_size, KS.kernarg_segment_alignment, KS.group_segment_size, KS.private_segment_size,
       KS.sgpr_count, KS.arch_vgpr_count, KS.accum_vgpr_count,
       json_extract(KS.extdata, '$.size') AS kernel_symbol_size,
       json_extract(KS.extdata, '$.kernel_id') AS kernel_id,
       json_extract(KS.extdata, '$.kernel_code_entry_byte_offset') AS kernel_code_entry_byte_offset,
       json_extract(KS.extdata, '$.formatted_kernel_name') AS formatted_kernel_name,
       json_extract(KS.extdata, '$.demangled_kernel_name') AS demangled_kernel_name,
       json_extract(KS.extdata, '$.truncated_kernel_name') AS truncated_kernel_name,
       json_extract(KS.extdata, '$.kernel_address.handle') AS kernel_address
FROM rocpd_info_kernel_symbol KS;

CREATE VIEW IF NOT EXISTS processes AS
SELECT N.id AS nid, N.machine_id, N.system_name, N.hostname, N.release AS system_release,
       N.version AS system_version, P.guid, P.ppid, P.pid, P.init, P.start, P."end", P.fini, P.command
FROM rocpd_info_process P
JOIN rocpd_info_node N ON N.id = P.nid AND N.guid = P.guid;

CREATE VIEW IF NOT EXISTS threads AS
SELECT N.id AS nid, N.machine_id, N.system_name, N.hostname, N.release AS system_release,
       N.version AS system_version, P.guid, P.ppid, P.pid, T.tid, T.start, T."end", T.name
FROM rocpd_info_thread T
JOIN rocpd_info_process P ON P.id = T.pid AND P.guid = T.guid
JOIN rocpd_info_node N ON N.id = T.nid AND N.guid = T.guid;

CREATE VIEW IF NOT EXISTS regions AS
SELECT R.id, R.guid, C.string AS category, S.string AS name, R.nid, P.pid, T.tid, R.start, R."end",
       (R."end" - R.start) AS duration, R.event_id, E.stack_id, E.parent_stack_id, E.correlation_id AS corr_id,
       E.extdata, E.call_stack, E.line_info
FROM rocpd_region R
JOIN rocpd_event E ON E.id = R.event_id AND E.guid = R.guid
JOIN rocpd_string S ON S.id = R.name_id AND S.guid = R.guid
LEFT JOIN rocpd_string C ON C.id = E.category_id AND C.guid = R.guid
JOIN rocpd_info_process P ON P.id = R.pid AND P.guid = R.guid
JOIN rocpd_info_thread T ON T.id = R.tid AND T.guid = R.guid;

CREATE VIEW IF NOT EXISTS region_args AS
SELECT R.id, R.guid, R.nid, R.pid, A.type, A.name, A.value
FROM rocpd_region R
JOIN rocpd_event E ON E.id = R.event_id AND E.guid = R.guid
JOIN rocpd_arg A ON A.event_id = E.id AND A.guid = R.guid;

CREATE VIEW IF NOT EXISTS samples AS
SELECT SA.id, SA.guid, C.string AS category, S.string AS name, TR.nid, P.pid, T.tid, SA.timestamp, SA.event_id,
       E.stack_id, E.parent_stack_id, E.correlation_id AS corr_id, E.extdata, E.call_stack, E.line_info
FROM rocpd_sample SA
JOIN rocpd_track TR ON TR.id = SA.track_id AND TR.guid = SA.guid
JOIN rocpd_event E ON E.id = SA.event_id AND E.guid = SA.guid
LEFT JOIN rocpd_string S ON S.id = TR.name_id AND S.guid = SA.guid
LEFT JOIN rocpd_string C ON C.id = E.category_id AND C.guid = SA.guid
JOIN rocpd_info_process P ON P.id = TR.pid AND P.guid = SA.guid
JOIN rocpd_info_thread T ON T.id = TR.tid AND T.guid = SA.guid;

CREATE VIEW IF NOT EXISTS sample_regions AS
SELECT id, guid, category, name, nid, pid, tid, timestamp AS start, timestamp AS "END", 0 AS duration, event_id,
       stack_id, parent_stack_id, corr_id, extdata, call_stack, line_info
FROM samples;

CREATE VIEW IF NOT EXISTS regions_and_samples AS
SELECT * FROM regions UNION ALL SELECT * FROM sample_regions;

CREATE VIEW IF NOT EXISTS kernels AS
SELECT K.id, K.guid, K.tid, C.string AS category, RN.string AS region, S.display_name AS name, K.nid, P.pid,
       A.absolute_index AS agent_abs_index, A.logical_index AS agent_log_index, A.type_index AS agent_type_index,
       A.type AS agent_type, S.code_object_id, K.kernel_id, K.dispatch_id, K.stream_id, K.queue_id,
       Q.name AS queue, ST.name AS stream, K.start, K."end", (K."end" - K.start) AS duration,
       K.grid_size_x AS grid_x, K.grid_size_y AS grid_y, K.grid_size_z AS grid_z,
       K.workgroup_size_x AS workgroup_x, K.workgroup_size_y AS workgroup_y, K.workgroup_size_z AS workgroup_z,
       K.group_segment_size AS lds_size, K.private_segment_size AS scratch_size,
       S.arch_vgpr_count AS vgpr_count, S.accum_vgpr_count, S.sgpr_count,
       S.group_segment_size AS static_lds_size, S.private_segment_size AS static_scratch_size,
       E.stack_id, E.parent_stack_id, E.correlation_id AS corr_id
FROM rocpd_kernel_dispatch K
JOIN rocpd_info_agent A ON A.id = K.agent_id AND A.guid = K.guid
JOIN rocpd_event E ON E.id = K.event_id AND E.guid = K.guid
LEFT JOIN rocpd_string C ON C.id = E.category_id AND C.guid = K.guid
JOIN rocpd_string RN ON RN.id = K.region_name_id AND RN.guid = K.guid
JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid
LEFT JOIN rocpd_info_stream ST ON ST.id = K.stream_id AND ST.guid = K.guid
LEFT JOIN rocpd_info_queue Q ON Q.id = K.queue_id AND Q.guid = K.guid
JOIN rocpd_info_process P ON P.id = Q.pid AND P.guid = Q.guid
JOIN rocpd_info_thread T ON T.id = K.tid AND T.guid = K.guid;

CREATE VIEW IF NOT EXISTS pmc_info AS
SELECT PI.id, PI.guid, PI.nid, P.pid, A.absolute_index AS agent_abs_index, PI.is_constant, PI.is_derived,
       PI.name, PI.description, PI.block, PI.expression
FROM rocpd_info_pmc PI
JOIN rocpd_info_agent A ON A.id = PI.agent_id AND A.guid = PI.guid
JOIN rocpd_info_process P ON P.id = PI.pid AND P.guid = PI.guid;

CREATE VIEW IF NOT EXISTS pmc_events AS
SELECT PE.id, PE.guid, PE.pmc_id, PE.event_id, C.string AS category, S.display_name AS name, K.nid, K.pid,
       K.dispatch_id, K.start, K."end", (K."end" - K.start) AS duration, PI.name AS counter_name,
       PE.value AS counter_value
FROM rocpd_pmc_event PE
JOIN rocpd_info_pmc PI ON PI.id = PE.pmc_id AND PI.guid = PE.guid
JOIN rocpd_event E ON E.id = PE.event_id AND E.guid = PE.guid
LEFT JOIN rocpd_string C ON C.id = E.category_id AND C.guid = PE.guid
JOIN rocpd_kernel_dispatch K ON K.event_id = PE.event_id AND K.guid = PE.guid
JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = PE.guid;

CREATE VIEW IF NOT EXISTS events_args AS
SELECT E.id AS event_id, C.string AS category, E.stack_id, E.parent_stack_id, E.correlation_id,
       A.position AS arg_position, A.type AS arg_type, A.name AS arg_name, A.value AS arg_value,
       E.call_stack, E.line_info, A.extdata
FROM rocpd_event E
JOIN rocpd_arg A ON A.event_id = E.id AND A.guid = E.guid
LEFT JOIN rocpd_string C ON C.id = E.category_id AND C.guid = E.guid;

CREATE VIEW IF NOT EXISTS stream_args AS
SELECT A.id AS argument_id, A.event_id, A.position AS arg_position, A.type AS arg_type, A.value AS arg_value,
       json_extract(A.extdata, '$.stream_id') AS stream_id, ST.nid, P.pid, ST.name AS stream_name,
       ST.extdata
FROM rocpd_arg A
JOIN rocpd_info_stream ST ON ST.id = json_extract(A.extdata, '$.stream_id') AND ST.guid = A.guid
JOIN rocpd_info_process P ON P.id = ST.pid AND P.guid = ST.guid
WHERE A.name = 'stream';

CREATE VIEW IF NOT EXISTS memory_copies AS
SELECT M.id, M.guid, C.string AS category, M.nid, P.pid, T.tid, M.start, M."end", (M."end" - M.start) AS duration,
       N.string AS name, RN.string AS region_name, M.stream_id, M.queue_id, ST.name AS stream_name,
       Q.name AS queue_name, M.size,
       DA.name AS dst_device, DA.absolute_index AS dst_agent_abs_index, DA.logical_index AS dst_agent_log_index,
       DA.type_index AS dst_agent_type_index, DA.type AS dst_agent_type, M.dst_address,
       SA.name AS src_device, SA.absolute_index AS src_agent_abs_index, SA.logical_index AS src_agent_log_index,
       SA.type_index AS src_agent_type_index, SA.type AS src_agent_type, M.src_address,
       E.stack_id, E.parent_stack_id, E.correlation_id AS corr_id
FROM rocpd_memory_copy M
JOIN rocpd_string N ON N.id = M.name_id AND N.guid = M.guid
JOIN rocpd_info_agent DA ON DA.id = M.dst_agent_id AND DA.guid = M.guid
JOIN rocpd_info_agent SA ON SA.id = M.src_agent_id AND SA.guid = M.guid
JOIN rocpd_event E ON E.id = M.event_id AND E.guid = M.guid
LEFT JOIN rocpd_string C ON C.id = E.category_id AND C.guid = M.guid
LEFT JOIN rocpd_string RN ON RN.id = M.region_name_id AND RN.guid = M.guid
LEFT JOIN rocpd_info_stream ST ON ST.id = M.stream_id AND ST.guid = M.guid
LEFT JOIN rocpd_info_queue Q ON Q.id = M.queue_id AND Q.guid = M.guid
JOIN rocpd_info_process P ON P.id = M.pid AND P.guid = M.guid
JOIN rocpd_info_thread T ON T.id = M.tid AND T.guid = M.guid;

CREATE VIEW IF NOT EXISTS memory_allocations AS
SELECT M.id, M.guid, C.string AS category, M.nid, P.pid, T.tid, M.start, M."end", (M."end" - M.start) AS duration,
       M.type, M.level, A.name AS agent_name, A.absolute_index AS agent_abs_index,
       A.logical_index AS agent_log_index, A.type_index AS agent_type_index, A.type AS agent_type, M.address,
       M.size, M.queue_id, Q.name AS queue_name, M.stream_id, ST.name AS stream_name, E.stack_id,
       E.parent_stack_id, E.correlation_id AS corr_id
FROM rocpd_memory_allocate M
LEFT JOIN rocpd_info_agent A ON A.id = M.agent_id AND A.guid = M.guid
LEFT JOIN rocpd_info_queue Q ON Q.id = M.queue_id AND Q.guid = M.guid
LEFT JOIN rocpd_info_stream ST ON ST.id = M.stream_id AND ST.guid = M.guid
JOIN rocpd_event E ON E.id = M.event_id AND E.guid = M.guid
LEFT JOIN rocpd_string C ON C.id = E.category_id AND C.guid = M.guid
JOIN rocpd_info_process P ON P.id = M.pid AND P.guid = M.guid
JOIN rocpd_info_thread T ON T.id = M.tid AND T.guid = M.guid;

CREATE VIEW IF NOT EXISTS scratch_memory AS
SELECT M.id, M.guid, M.nid, M.pid, M.type AS operation, A.name AS agent_name, A.absolute_index AS agent_abs_index,
       A.logical_index AS agent_log_index, A.type_index AS agent_type_index, A.type AS agent_type, M.queue_id,
       M.tid, json_extract(M.extdata, '$.flags') AS alloc_flags, M.start, M."end",
       (M."end" - M.start) AS duration, M.size, M.address, E.correlation_id, E.stack_id, E.parent_stack_id,
       E.correlation_id AS corr_id, C.string AS category, E.extdata AS event_extdata
FROM rocpd_memory_allocate M
LEFT JOIN rocpd_info_agent A ON A.id = M.agent_id AND A.guid = M.guid
JOIN rocpd_event E ON E.id = M.event_id AND E.guid = M.guid
LEFT JOIN rocpd_string C ON C.id = E.category_id AND C.guid = M.guid
WHERE M.level = 'SCRATCH'
ORDER BY M.start;

CREATE VIEW IF NOT EXISTS counters_collection AS
SELECT MIN(PE.id) AS id, K.guid, K.dispatch_id, K.kernel_id, E.id AS event_id, E.correlation_id, E.stack_id,
       E.parent_stack_id, K.pid, K.tid, K.agent_id, A.absolute_index AS agent_abs_index,
       A.logical_index AS agent_log_index, A.type_index AS agent_type_index, A.type AS agent_type, K.queue_id,
       K.grid_size_x, K.grid_size_y, K.grid_size_z, (K.grid_size_x * K.grid_size_y * K.grid_size_z) AS grid_size,
       S.display_name AS kernel_name, RN.string AS kernel_region,
       K.workgroup_size_x, K.workgroup_size_y, K.workgroup_size_z,
       (K.workgroup_size_x * K.workgroup_size_y * K.workgroup_size_z) AS workgroup_size,
       K.group_segment_size AS lds_block_size, K.private_segment_size AS scratch_size,
       S.arch_vgpr_count AS vgpr_count, S.accum_vgpr_count, S.sgpr_count,
       PI.name AS counter_name, PI.symbol AS counter_symbol, PI.component, PI.description, PI.block,
       PI.expression, PI.value_type, PI.id AS counter_id, SUM(PE.value) AS value, K.start, K."end",
       PI.is_constant, PI.is_derived, (K."end" - K.start) AS duration, C.string AS category, K.nid, E.extdata,
       S.code_object_id
FROM rocpd_pmc_event PE
JOIN rocpd_info_pmc PI ON PI.id = PE.pmc_id AND PI.guid = PE.guid
JOIN rocpd_event E ON E.id = PE.event_id AND E.guid = PE.guid
LEFT JOIN rocpd_string C ON C.id = E.category_id AND C.guid = PE.guid
JOIN rocpd_kernel_dispatch K ON K.event_id = PE.event_id AND K.guid = PE.guid
JOIN rocpd_info_agent A ON A.id = K.agent_id AND A.guid = PE.guid
JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = PE.guid
LEFT JOIN rocpd_string RN ON RN.id = K.region_name_id AND RN.guid = PE.guid
GROUP BY K.guid, K.dispatch_id, PI.name, K.agent_id;

CREATE VIEW IF NOT EXISTS top_kernels AS
SELECT S.display_name AS name, COUNT(*) AS total_calls, SUM(K."end" - K.start) / 1000.0 AS total_duration,
       (SUM(K."end" - K.start) / COUNT(*)) / 1000.0 AS average,
       SUM(K."end" - K.start) * 100.0 / (SELECT SUM("end" - start) FROM rocpd_kernel_dispatch) AS percentage
FROM rocpd_kernel_dispatch K
JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid
GROUP BY S.display_name
ORDER BY total_duration DESC;

CREATE VIEW IF NOT EXISTS busy AS
SELECT B.agent_id, A.type, B.GpuTime, S.WallTime, B.GpuTime * 1.0 / S.WallTime AS Busy
FROM (SELECT guid, agent_id, SUM("end" - start) AS GpuTime
      FROM (SELECT guid, agent_id, start, "end" FROM rocpd_kernel_dispatch
            UNION ALL
            SELECT guid, dst_agent_id, start, "end" FROM rocpd_memory_copy)
      GROUP BY guid, agent_id) B
CROSS JOIN (SELECT MAX("end") - MIN(start) AS WallTime
            FROM (SELECT start, "end" FROM rocpd_kernel_dispatch
                  UNION ALL
                  SELECT start, "end" FROM rocpd_memory_copy)) S
JOIN rocpd_info_agent A ON A.id = B.agent_id AND A.guid = B.guid;

CREATE VIEW IF NOT EXISTS top AS
SELECT name, COUNT(*) AS total_calls, SUM(duration) / 1000.0 AS total_duration,
       (SUM(duration) / COUNT(*)) / 1000.0 AS average,
       SUM(duration) * 100.0 / (SELECT SUM(duration) FROM (
         SELECT "end" - start AS duration FROM rocpd_kernel_dispatch
         UNION ALL SELECT "end" - start FROM rocpd_memory_copy
         UNION ALL SELECT "end" - start FROM rocpd_region)) AS percentage
FROM (SELECT S.display_name AS name, K."end" - K.start AS duration
      FROM rocpd_kernel_dispatch K JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid
      UNION ALL
      SELECT N.string, M."end" - M.start FROM rocpd_memory_copy M
      JOIN rocpd_string N ON N.id = M.name_id AND N.guid = M.guid
      UNION ALL
      SELECT N.string, R."end" - R.start FROM rocpd_region R
      JOIN rocpd_string N ON N.id = R.name_id AND N.guid = R.guid)
GROUP BY name
ORDER BY total_duration DESC;
)SQL";

const std::vector<std::string_view> kTableNames = {
    "metadata",         "string",          "info_node",        "info_process",   "info_thread",
    "info_agent",       "info_queue",      "info_stream",      "info_pmc",       "info_code_object",
    "info_kernel_symbol", "track",         "event",            "arg",            "pmc_event",
    "region",           "sample",          "kernel_dispatch",  "memory_copy",    "memory_allocate",
    "event_operation"};

const std::vector<std::string_view> kDataViewNames = {
    "code_objects", "kernel_symbols",      "processes",   "threads",           "regions",
    "region_args",  "samples",             "sample_regions", "regions_and_samples", "kernels",
    "pmc_info",     "pmc_events",          "events_args", "stream_args",       "memory_copies",
    "memory_allocations", "scratch_memory", "counters_collection", "top_kernels", "busy",
    "top"};

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (std::size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
}

}  // namespace

std::string table_suffix(std::string_view guid) {
  std::string suffix = "_";
  suffix += guid;
  for (char& c : suffix)
    if (c == '-') c = '_';
  return suffix;
}

const std::vector<std::string_view>& table_names() { return kTableNames; }
const std::vector<std::string_view>& data_view_names() { return kDataViewNames; }

std::string tables_sql(std::string_view guid) {
  std::string sql(kTables);
  replace_all(sql, "{{uuid}}", table_suffix(guid));
  replace_all(sql, "{{guid}}", guid);
  return sql;
}

std::string passthrough_views_sql(std::string_view guid) {
  std::string suffix = table_suffix(guid);
  std::string sql;
  for (auto name : kTableNames) {
    sql += "CREATE VIEW IF NOT EXISTS rocpd_";
    sql += name;
    sql += " AS SELECT * FROM rocpd_";
    sql += name;
    sql += suffix;
    sql += ";\n";
  }
  return sql;
}

std::string data_views_sql() { return std::string(kDataViews); }

}  // namespace rpl::rocpd::schema
