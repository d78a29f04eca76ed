#include "testing/fixtures.hpp"

#include "store/rocpd_schema.hpp"
#include "testing/sql.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace rpl::test {

using namespace rpl::rocpd;

namespace {

constexpr const char* kCategory = "HIP_RUNTIME_API_EXT";

ArgRow stream_arg(int64_t stream_id) {
  // A plausible hipStream_t pointer as the value; the rocpd stream id in extdata, as rocprofv3 writes.
  return {"hipStream_t", "stream", fmt::format("0x{:x}", 0x5500000000 + 0x100 * stream_id),
          fmt::format("{{\"stream_id\": {}}}", stream_id)};
}

}  // namespace

FixtureRows fixture_rows(const FixtureSpec& spec) {
  FixtureRows r;
  r.guid = spec.guid;
  r.node.id = 3735928559;
  r.node.machine_id = "deadbeefmachineid";
  r.node.hostname = spec.hostname;
  r.node.release = "6.8.0";
  r.node.version = "#1 SMP";
  r.node.hardware_name = "x86_64";
  r.process.pid = spec.pid;
  r.process.ppid = 4000;
  r.process.command = "./app --size 1048576";
  r.process.init = r.process.start = spec.t0;
  const TimeNs t0 = spec.t0;
  const uint32_t tid = static_cast<uint32_t>(spec.pid);
  r.threads.push_back({tid, "main", t0, 0});

  AgentRow cpu;
  cpu.id = 0;
  cpu.is_gpu = false;
  cpu.name = "AMD EPYC 9454";
  cpu.vendor_name = "CPU";
  cpu.product_name = "AMD EPYC 9454";
  r.agents.push_back(cpu);
  AgentRow gpu;
  gpu.id = 2;
  gpu.absolute_index = 2;
  gpu.logical_index = 1;
  gpu.name = "gfx942";
  gpu.model_name = "aqua_vanjaram";
  gpu.vendor_name = "AMD";
  gpu.product_name = "AMD Instinct MI300X";
  gpu.extdata_json =
      R"({"cu_count":304,"simd_per_cu":4,"max_waves_per_simd":8,"wave_front_size":64,"num_xcc":8,)"
      R"("max_engine_clk_fcompute":2100,"lds_size_in_kb":64,"gfx_target_version":90402})";
  r.agents.push_back(gpu);

  r.queues.emplace_back(0, "Default Queue");
  r.streams.emplace_back(0, "Default Stream");
  for (int s = 1; s <= spec.streams; ++s) {
    r.queues.emplace_back(s, fmt::format("Queue {}", s));
    r.streams.emplace_back(s, fmt::format("Stream {}", s));
  }
  r.code_objects.push_back({1, 2, "file:///app#offset=8192&size=12345"});
  r.symbols.push_back({1, 1, "_Z7computePfi.kd", "compute(float*, int)", 16, 0, 0, 16, 32, 0});
  r.symbols.push_back({2, 1, "_Z6reducePf.kd", "reduce(float*)", 8, 4096, 0, 24, 40, 4});
  r.symbols.push_back({3, 1, "_Z7consumePf.kd", "", 8, 0, 16, 8, 12, 0});

  int64_t correlation = 0;
  int64_t next_dispatch = spec.first_dispatch_id;
  int64_t next_copy = 1;
  TimeNs gpu_end = t0;
  auto api = [&](std::string name, std::vector<ArgRow> args = {}) -> RegionRow& {
    ++correlation;
    RegionRow call;
    call.tid = tid;
    call.start = t0 + 10000 * correlation;
    call.end = call.start + 2000;
    call.name = std::move(name);
    call.category = kCategory;
    call.correlation_id = correlation;
    call.args = std::move(args);
    r.regions.push_back(std::move(call));
    return r.regions.back();
  };
  auto launch = [&](int64_t symbol, int64_t stream, TimeNs start, TimeNs duration) {
    api("hipLaunchKernel", {stream_arg(stream)});
    DispatchRow d;
    d.dispatch_id = next_dispatch++;
    d.tid = tid;
    d.agent_id = 2;
    d.kernel_id = symbol;
    d.queue_id = stream;
    d.stream_id = stream;
    d.start = start;
    d.end = start + duration;
    d.group_segment_size = r.symbols[symbol - 1].group_segment_size;
    d.private_segment_size = r.symbols[symbol - 1].private_segment_size;
    d.workgroup[0] = 256;
    d.grid[0] = 1048576;
    d.correlation_id = correlation;
    r.dispatches.push_back(d);
    gpu_end = std::max(gpu_end, d.end);
  };
  auto copy = [&](int64_t stream, std::string kind, int64_t src, int64_t dst, TimeNs start, TimeNs duration) {
    api("hipMemcpyAsync", {{"void*", "dst", "0x7f0000000000", "{}"},
                           {"const void*", "src", "0x7e0000000000", "{}"},
                           {"size_t", "sizeBytes", "1048576", "{}"},
                           stream_arg(stream)});
    MemoryCopyRow c;
    c.id = next_copy++;
    c.tid = tid;
    c.start = start;
    c.end = start + duration;
    c.kind = std::move(kind);
    c.src_agent_id = src;
    c.dst_agent_id = dst;
    c.src_address = 0x7e0000000000;
    c.dst_address = 0x7f0000000000;
    c.size = 1 << 20;
    c.stream_id = stream;
    c.correlation_id = correlation;
    r.copies.push_back(c);
    gpu_end = std::max(gpu_end, c.end);
  };
  auto last_end_on = [&](int64_t stream) {
    TimeNs end = 0;
    for (const auto& d : r.dispatches)
      if (d.stream_id == stream) end = std::max(end, d.end);
    return end;
  };

  if (spec.copies) copy(0, "MEMORY_COPY_HOST_TO_DEVICE", 0, 2, t0 + 100000, 50000);

  for (int i = 0; i < spec.kernels_per_stream; ++i)
    for (int s = 1; s <= spec.streams; ++s)
      launch(i % 2 == 0 ? 1 : 2, s, t0 + 200000 + TimeNs{50000} * i + 5000 * (s - 1), 20000 + 1000 * s);

  if (spec.event_sync && spec.streams >= 2) {
    TimeNs last1 = last_end_on(1);
    api("hipEventRecord", {{"hipEvent_t", "event", "0xe1", "{}"}, stream_arg(1)});
    api("hipStreamWaitEvent", {stream_arg(2), {"hipEvent_t", "event", "0xe1", "{}"}, {"unsigned int", "flags", "0", "{}"}});
    if (spec.gpu_barriers) {
      r.event_operations.push_back({tid, 2, 0xe1, 1, 1, last1, last1 + 1000, false, correlation - 1});
      r.event_operations.push_back({tid, 2, 0xe1, 2, 2, last1 + 1000, last1 + 2000, true, correlation});
    }
    launch(3, 2, last1 + 10000, 30000);
  }

  if (spec.copies && spec.streams >= 1) {
    int64_t s = spec.streams;
    copy(s, "MEMORY_COPY_DEVICE_TO_HOST", 2, 0, last_end_on(s) + 5000, 40000);
  }

  if (spec.host_sync) {
    api("hipStreamSynchronize", {{"hipStream_t", "stream", "0x0", "{}"}});
    RegionRow& sync = api("hipDeviceSynchronize");
    sync.end = std::max(sync.end, gpu_end + 1000);
  }

  if (spec.counters) {
    r.pmc_info.push_back({7, 2, "SQ_WAVES", "waves", "SQ"});
    r.pmc_info.push_back({9, 2, "TCC_HIT", "L2 hits", "TCC"});
    for (const auto& d : r.dispatches) {
      r.pmc_values.push_back({d.dispatch_id, 7, 8192.0});
      r.pmc_values.push_back({d.dispatch_id, 9, 100.0});
      r.pmc_values.push_back({d.dispatch_id, 7, 8192.0});
      r.pmc_values.push_back({d.dispatch_id, 9, 10.0 * static_cast<double>(d.dispatch_id)});
    }
  }

  TimeNs end = gpu_end;
  for (const auto& call : r.regions) end = std::max(end, call.end);
  r.process.end = r.process.fini = end + 1000000;
  r.threads[0].end = end;
  return r;
}

void add_counters(FixtureRows& rows, const std::vector<std::string>& names,
                  const std::function<std::optional<double>(const rocpd::DispatchRow&, const std::string&)>& value,
                  const std::set<std::string>& split) {
  int64_t id = 100;
  std::vector<std::pair<std::string, int64_t>> pmc;
  for (const auto& n : names) {
    rows.pmc_info.push_back({id, 2, n, n, n.substr(0, n.find('_'))});
    pmc.emplace_back(n, id++);
  }
  for (const auto& d : rows.dispatches)
    for (const auto& [name, pmc_id] : pmc) {
      const std::optional<double> v = value(d, name);
      if (!v) continue;
      if (split.count(name)) {
        rows.pmc_values.push_back({d.dispatch_id, pmc_id, *v / 2});
        rows.pmc_values.push_back({d.dispatch_id, pmc_id, *v / 2});
      } else {
        rows.pmc_values.push_back({d.dispatch_id, pmc_id, *v});
      }
    }
}

void add_marker_range(FixtureRows& rows, int64_t tid, const std::string& name, TimeNs start, TimeNs end) {
  RegionRow r;
  r.tid = tid;
  r.start = start;
  r.end = end;
  r.name = name;
  r.category = "MARKER_CORE_API";
  rows.regions.push_back(std::move(r));
}

void write_fixture(const FixtureRows& r, const std::string& path) {
  Writer w(path, r.node, r.process, r.guid);
  for (const auto& t : r.threads) w.add_thread(t);
  for (const auto& a : r.agents) w.add_agent(a);
  for (const auto& [id, name] : r.queues) w.add_queue(id, name);
  for (const auto& [id, name] : r.streams) w.add_stream(id, name);
  for (const auto& c : r.code_objects) w.add_code_object(c.id, c.agent_id, c.uri);
  for (const auto& k : r.symbols) w.add_kernel_symbol(k);
  for (const auto& call : r.regions) w.add_region(call);
  for (const auto& d : r.dispatches) w.add_dispatch(d);
  for (const auto& c : r.copies) w.add_memory_copy(c);
  for (const auto& op : r.event_operations) w.add_event_operation(op);
  for (const auto& p : r.pmc_info) w.add_pmc_info(p);
  for (const auto& v : r.pmc_values) w.add_pmc_value(v);
  w.finish();
}

std::string make_fixture_db(const std::filesystem::path& dir, const FixtureSpec& spec) {
  std::string path = (dir / spec.file_name).string();
  write_fixture(fixture_rows(spec), path);
  return path;
}

void write_merged_views(const std::string& merged, const std::string& a, const std::string& b) {
  SqlFile db(merged);
  db.exec("ATTACH DATABASE '" + a + "' AS a; ATTACH DATABASE '" + b + "' AS b;");
  for (auto base : rocpd::schema::table_names()) {
    std::string name = "rocpd_" + std::string(base);
    db.exec("CREATE TABLE " + name + "_p1 AS SELECT * FROM a." + name + ";");
    db.exec("CREATE TABLE " + name + "_p2 AS SELECT * FROM b." + name + ";");
    db.exec("CREATE VIEW " + name + " AS SELECT * FROM " + name + "_p1 UNION ALL SELECT * FROM " + name + "_p2;");
  }
  db.exec("DELETE FROM rocpd_metadata_p1 WHERE tag = 'uuid'; DELETE FROM rocpd_metadata_p2 WHERE tag = 'uuid';");
}

}  // namespace rpl::test
