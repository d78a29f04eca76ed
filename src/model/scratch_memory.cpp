#include "model/scratch_memory.hpp"

namespace rpl {

const char* to_string(ScratchOperation::Kind kind) {
  switch (kind) {
    case ScratchOperation::Kind::Alloc: return "ALLOC";
    case ScratchOperation::Kind::Free: return "FREE";
    case ScratchOperation::Kind::Realloc: return "REALLOC";
    case ScratchOperation::Kind::Reclaim: return "RECLAIM";
  }
  return "ALLOC";
}

}  // namespace rpl
