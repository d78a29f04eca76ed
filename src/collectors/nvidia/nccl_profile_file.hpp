#pragma once
// Files of our NCCL profiler plugin (librpl_nccl_profiler.so) and of the topology `rocm-perf profile`
// records on NVIDIA, read into the model so that the spill converter stores them beside the trace
// (store/rocpd_collective_calls.hpp).
//
// <pid>.rplnccl, tab-separated, one line per record:
//   rpl-nccl-profile  1  v<interface version>
//   C  <comm id 0x...>  <ranks>  <rank>  <nodes>                              (a communicator was created)
//   E  <comm id>  <ranks>  <rank>  <nodes>  c|p  <sequence>  <operation>  <count>  <NCCL data type>  <root>
//      <peer>  <algorithm>  <protocol>  <channels>  <group>  <start ns>  <stop ns, 0 = not recorded>   (a call; c collective, p p2p)
// Operations are NCCL's names ("AllReduce", "Send"); data types NCCL's ("ncclBfloat16"), normalised here.
//
// gpu_topology.txt: the output of `nvidia-smi -L`, `nvidia-smi topo -m`, `nvidia-smi nvlink -s` and
// `nvidia-smi --query-gpu=uuid,pcie.link.gen.max,pcie.link.width.max --format=csv,noheader`, each after a line
// "== <command>".
#include <string>
#include <string_view>
#include <vector>

#include "model/collective_calls.hpp"

namespace rpl::collectors {

// Parses a plugin file's text; `path` names it in errors (rpl::Error InputCorrupt naming the line).
// A last line cut short (the process died while writing) is skipped.
std::vector<CollectiveCall> parse_nccl_profile(std::string_view text, const std::string& path);

// Parses gpu_topology.txt: per GPU its NVLink total and PCIe link (peer_uuid ""), and per pair of GPUs
// joined by NVLink a row with their links. Unknown sections are ignored; missing ones give fewer rows.
std::vector<GpuLink> parse_nvidia_topology(std::string_view text);

// The commands whose outputs make gpu_topology.txt, in order.
std::vector<std::vector<std::string>> nvidia_topology_commands();

}  // namespace rpl::collectors

namespace rpl::collectors {

// Stores what the plugin wrote for process `pid` (<dir>/<pid>.rplnccl, then removed) and the topology
// (<dir>/gpu_topology.txt, left for the other processes) in the database `db`. Problems are logged, never
// thrown: the trace is complete without them. Returns the number of calls stored.
std::size_t attach_nccl_records(const std::string& db, const std::string& dir, int64_t pid);

}  // namespace rpl::collectors
