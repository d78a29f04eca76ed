#pragma once
// The CUDA launch and function attributes a capture records and a replay re-applies, by id and name.
#include <cuda.h>

#include <string>
#include <vector>

namespace rpl::cuda_capture {

// Name of a CUlaunchAttributeID ("cluster_dimension"); "attribute_<id>" for ids this build does not know.
std::string launch_attribute_name(int id);

// Whether a replay re-applies the launch attribute. Those tied to the application's other work (events,
// programmatic dependent launch, graph-only attributes) are recorded but not replayed.
bool launch_attribute_replayable(int id);

struct FunctionAttribute {
  CUfunction_attribute id;
  const char* name;
};

// Function attributes the application can set with cuFuncSetAttribute and that change how a launch runs
// (dynamic shared memory limit, carveout, cluster shape): recorded at capture, set again at replay.
const std::vector<FunctionAttribute>& settable_function_attributes();

}  // namespace rpl::cuda_capture
