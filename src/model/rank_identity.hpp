#pragma once
// Which rank of a distributed job a profiled process was: read from the launcher's environment variables
// (torchrun, Open MPI, PMI/PMIx, MVAPICH, SLURM) by the collector inside the process, stored as JSON in
// rocpd_info_process.extdata, and read back into Process::rank.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace rpl {

struct RankIdentity {
  int64_t rank = -1;        // -1: the process was not started by a known launcher
  int64_t local_rank = -1;  // rank within its node
  int64_t world_size = -1;
  std::string source;           // the variable the rank came from ("RANK", "OMPI_COMM_WORLD_RANK", ...)
  std::string visible_devices;  // CUDA_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES, as set
  bool known() const { return rank >= 0; }
};

// Looks the variables up through `getenv` (returns nullptr when unset). The first launcher family whose
// rank variable is a non-negative integer wins, in the order torchrun, Open MPI, PMIx, PMI, MVAPICH, SLURM:
// a launcher started inside a SLURM allocation sets its own variables, which describe the process better.
RankIdentity rank_identity_from_env(const std::function<const char*(const char*)>& getenv);

// {"rank":0,"local_rank":0,"world_size":2,"rank_source":"RANK","visible_devices":"0,1"}; "{}" when unknown.
std::string rank_identity_json(const RankIdentity& identity);
// Reads what rank_identity_json wrote out of an extdata object; anything else (other keys, not JSON)
// gives an unknown identity.
RankIdentity rank_identity_from_json(std::string_view extdata);

}  // namespace rpl
