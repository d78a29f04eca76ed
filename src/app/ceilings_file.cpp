// The ceilings file (schemas/ceilings.schema.json): its one reader and its one writer.
#include "app/ceilings_file.hpp"

#include <cmath>
#include <cstdio>

#include "support/atomic_file.hpp"
#include "support/errors.hpp"
#include "support/input_file.hpp"

namespace rpl::app {
namespace {

void require_number(const nlohmann::json& v, const std::string& source, const std::string& field, double& out) {
  if (!v.is_number()) throw Error(ExitCode::InputInvalid, source + ": " + field + " must be a number");
  out = v.get<double>();
  if (!std::isfinite(out) || out <= 0)
    throw Error(ExitCode::InputInvalid, source + ": " + field + " must be a positive number, got " + v.dump());
}

std::string optional_string(const nlohmann::json& obj, const char* key, const std::string& source) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return {};
  if (!it->is_string()) throw Error(ExitCode::InputInvalid, source + ": " + key + " must be a string");
  return it->get<std::string>();
}

}  // namespace

analysis::EmpiricalCeilings parse_empirical_ceilings(const nlohmann::json& doc, const std::string& source) {
  if (!doc.is_object()) throw Error(ExitCode::InputInvalid, source + ": empirical ceilings must be a JSON object");
  analysis::EmpiricalCeilings c;
  auto version = doc.find("schema_version");
  if (version == doc.end() || !version->is_string())
    throw Error(ExitCode::InputInvalid, source + ": schema_version (a string) is missing");
  c.schema_version = version->get<std::string>();
  // Minor versions only add optional fields; another major version is a different format.
  if (c.schema_version.substr(0, c.schema_version.find('.')) != "1")
    throw Error(ExitCode::InputInvalid,
                source + ": schema_version '" + c.schema_version + "' is not supported (expected 1.x)");
  auto device = doc.find("device");
  if (device == doc.end() || !device->is_object())
    throw Error(ExitCode::InputInvalid, source + ": device (an object with arch) is missing");
  c.arch = optional_string(*device, "arch", source);
  if (c.arch.empty()) throw Error(ExitCode::InputInvalid, source + ": device.arch is missing");
  c.product_name = optional_string(*device, "product_name", source);
  c.measured_at = optional_string(doc, "measured_at", source);
  c.tool = optional_string(doc, "tool", source);
  if (auto bw = doc.find("bandwidth_gbps"); bw != doc.end()) {
    if (!bw->is_object()) throw Error(ExitCode::InputInvalid, source + ": bandwidth_gbps must be an object");
    for (const auto& [name, value] : bw->items()) {
      auto level = analysis::parse_mem_level(name);
      if (!level)
        throw Error(ExitCode::InputInvalid,
                    source + ": bandwidth_gbps." + name + " is not a memory level (hbm, l2, l1, lds)");
      require_number(value, source, "bandwidth_gbps." + name, c.bandwidth_gbps[static_cast<std::size_t>(*level)]);
    }
  }
  if (auto fl = doc.find("gflops"); fl != doc.end()) {
    if (!fl->is_object()) throw Error(ExitCode::InputInvalid, source + ": gflops must be an object");
    for (const auto& [name, value] : fl->items()) {
      auto cls = analysis::parse_compute_class(name);
      if (!cls)
        throw Error(ExitCode::InputInvalid, source + ": gflops." + name +
                                                " is not a compute class (vector_f32, matrix_bf16, ...)");
      require_number(value, source, "gflops." + name, c.gflops[cls->index()]);
    }
  }
  return c;
}

analysis::EmpiricalCeilings read_empirical_ceilings(const std::string& path) {
  const std::string text = read_input_file(path, "empirical ceilings file", 16 << 20);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ExitCode::InputInvalid, path + ": not valid JSON (" + e.what() + ")");
  }
  return parse_empirical_ceilings(doc, path);
}

nlohmann::json empirical_ceilings_document(const analysis::EmpiricalCeilings& c) {
  nlohmann::json doc;
  doc["schema_version"] = c.schema_version;
  doc["device"] = {{"arch", c.arch}};
  if (!c.product_name.empty()) doc["device"]["product_name"] = c.product_name;
  doc["measured_at"] = c.measured_at;
  if (!c.tool.empty()) doc["tool"] = c.tool;
  nlohmann::json bw = nlohmann::json::object();
  for (std::size_t i = 0; i < analysis::kMemLevelCount; ++i)
    if (c.bandwidth_gbps[i] > 0) bw[analysis::mem_level_name(static_cast<analysis::MemLevel>(i))] = c.bandwidth_gbps[i];
  nlohmann::json fl = nlohmann::json::object();
  for (std::size_t i = 0; i < analysis::kComputeClassCount; ++i)
    if (c.gflops[i] > 0) fl[analysis::compute_class_name(analysis::ComputeClass::from_index(i))] = c.gflops[i];
  doc["bandwidth_gbps"] = std::move(bw);
  doc["gflops"] = std::move(fl);
  return doc;
}

void write_empirical_ceilings(const std::string& path, const analysis::EmpiricalCeilings& c) {
  const std::string text = empirical_ceilings_document(c).dump(2) + "\n";
  write_file_atomically(path, [&](std::FILE* f) {
    if (std::fwrite(text.data(), 1, text.size(), f) != text.size())
      throw Error(ExitCode::OutputFailed, path + ": write failed");
  });
}

}  // namespace rpl::app
