#include "collectors/collector_factory.hpp"

#include "collectors/amd/rocprofv3_collector.hpp"

namespace rpl::collectors {

std::unique_ptr<platform::Collector> make_collector(platform::Kind kind) {
  if (kind == platform::Kind::Rocm) return std::make_unique<Rocprofv3Collector>();
  return make_cuda_collector();
}

}  // namespace rpl::collectors
