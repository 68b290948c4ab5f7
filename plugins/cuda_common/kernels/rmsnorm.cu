// Instantiates the RMSNorm kernel for the target's element type so the
// plugin's fatbin carries it (SASS + PTX) from the first build on.
#include "kernels/rmsnorm.cuh"
#include "target_policy.hpp"

namespace algenta::cuda {

template __global__ void rmsnorm_kernel<TargetPolicy::Element>(
    const TargetPolicy::Element*, const TargetPolicy::Element*, TargetPolicy::Element*, int,
    float, float);

}  // namespace algenta::cuda
