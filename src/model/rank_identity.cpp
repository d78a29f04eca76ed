#include "model/rank_identity.hpp"

#include <nlohmann/json.hpp>

#include <charconv>

namespace rpl {
namespace {

struct LauncherVariables {
  const char* rank;
  const char* local_rank;
  const char* world_size;
};

constexpr LauncherVariables kLaunchers[] = {
    {"RANK", "LOCAL_RANK", "WORLD_SIZE"},                                              // torchrun
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},  // Open MPI
    {"PMIX_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},                                     // PMIx (MPICH, Slurm pmix)
    {"PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},                                      // PMI (MPICH, Intel MPI)
    {"MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_SIZE"},      // MVAPICH
    {"SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},                                // srun
};

int64_t non_negative(const char* text) {
  if (!text || !*text) return -1;
  std::string_view s(text);
  int64_t v = -1;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size() && v >= 0 ? v : -1;
}

int64_t json_int(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() && it->get<int64_t>() >= 0 ? it->get<int64_t>() : -1;
}

}  // namespace

RankIdentity rank_identity_from_env(const std::function<const char*(const char*)>& getenv) {
  RankIdentity id;
  for (const LauncherVariables& l : kLaunchers) {
    int64_t rank = non_negative(getenv(l.rank));
    if (rank < 0) continue;
    id.rank = rank;
    id.local_rank = non_negative(getenv(l.local_rank));
    id.world_size = non_negative(getenv(l.world_size));
    id.source = l.rank;
    break;
  }
  for (const char* v : {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"})
    if (const char* text = getenv(v); text && *text) {
      id.visible_devices = text;
      break;
    }
  return id;
}

std::string rank_identity_json(const RankIdentity& identity) {
  nlohmann::json j = nlohmann::json::object();
  if (identity.known()) {
    j["rank"] = identity.rank;
    if (identity.local_rank >= 0) j["local_rank"] = identity.local_rank;
    if (identity.world_size >= 0) j["world_size"] = identity.world_size;
    j["rank_source"] = identity.source;
  }
  if (!identity.visible_devices.empty()) j["visible_devices"] = identity.visible_devices;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

RankIdentity rank_identity_from_json(std::string_view extdata) {
  RankIdentity id;
  auto j = nlohmann::json::parse(extdata, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return id;
  id.rank = json_int(j, "rank");
  if (!id.known()) return id;
  id.local_rank = json_int(j, "local_rank");
  id.world_size = json_int(j, "world_size");
  if (auto it = j.find("rank_source"); it != j.end() && it->is_string()) id.source = it->get<std::string>();
  if (auto it = j.find("visible_devices"); it != j.end() && it->is_string())
    id.visible_devices = it->get<std::string>();
  return id;
}

}  // namespace rpl
