#include "collectors/nvidia/cuda_driver/cuda_attributes.hpp"

namespace rpl::cuda_capture {

std::string launch_attribute_name(int id) {
  switch (id) {
    case 0: return "ignore";
    case 1: return "access_policy_window";
    case 2: return "cooperative";
    case 3: return "synchronization_policy";
    case 4: return "cluster_dimension";
    case 5: return "cluster_scheduling_policy_preference";
    case 6: return "programmatic_stream_serialization";
    case 7: return "programmatic_event";
    case 8: return "priority";
    case 9: return "mem_sync_domain_map";
    case 10: return "mem_sync_domain";
    case 11: return "preferred_cluster_dimension";
    case 12: return "launch_completion_event";
    case 13: return "device_updatable_kernel_node";
    case 14: return "preferred_shared_memory_carveout";
    case 16: return "nvlink_util_centric_scheduling";
    default: return "attribute_" + std::to_string(id);
  }
}

bool launch_attribute_replayable(int id) {
  switch (id) {
    case 1: case 2: case 4: case 5: case 8: case 9: case 10: case 11: case 14: case 16: return true;
    default: return false;
  }
}

const std::vector<FunctionAttribute>& settable_function_attributes() {
  static const std::vector<FunctionAttribute> attributes = {
      {CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, "max_dynamic_shared_size_bytes"},
      {CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, "preferred_shared_memory_carveout"},
      {CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, "required_cluster_width"},
      {CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, "required_cluster_height"},
      {CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, "required_cluster_depth"},
      {CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, "non_portable_cluster_size_allowed"},
      {CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE, "cluster_scheduling_policy_preference"},
  };
  return attributes;
}

}  // namespace rpl::cuda_capture
