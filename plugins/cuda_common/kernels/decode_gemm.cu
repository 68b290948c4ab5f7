// Instantiates the decode GEMM (both load variants, through its launcher) for
// the target's element type so the plugin's fatbin carries it (SASS + PTX).
#include "kernels/decode_gemm.cuh"
#include "target_policy.hpp"

namespace algenta::cuda {

template cudaError_t launch_decode_gemm<TargetPolicy::Element>(
    const TargetPolicy::Element*, const TargetPolicy::Element*, const float*, float*, int, int,
    int, cudaStream_t);

}  // namespace algenta::cuda
