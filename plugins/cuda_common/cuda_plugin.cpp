// The CUDA engine plugin's table and entry point, shared by every target.
// Loading the plugin does no CUDA work, so the host can read the descriptor
// on any machine; the engine (cuda_engine.hpp) touches the GPU at open.
#include "algenta/plugin_abi.h"
#include "cuda_engine.hpp"
#include "fact_ranges.hpp"
#include "plugin_support/plugin_error.hpp"
#include "plugin_support/plugin_table.hpp"
#include "target_policy.hpp"

#define ALGENTA_STR2(x) #x
#define ALGENTA_STR(x) ALGENTA_STR2(x)

namespace algenta::cuda {
namespace {

constexpr const char* kHostLibraries[] = {
    "libcublasLt.so." ALGENTA_STR(ALGENTA_CUDA_MAJOR),
    "libcublas.so." ALGENTA_STR(ALGENTA_CUDA_MAJOR),
};

// A mutant build (planted bug, for the gates' own tests) names itself.
#ifdef ALGENTA_CUDA_PLUGIN_NAME
constexpr const char* kPluginName = ALGENTA_CUDA_PLUGIN_NAME;
#else
constexpr const char* kPluginName = TargetPolicy::kPluginName;
#endif

#define ALGENTA_KERNEL(name, role, module) \
  {sizeof(AlgentaKernelInfo), name, role, "cuda_common/kernels/" module, "*"}

// Every kernel the engine launches, by the module that defines it. The
// decoder is the same for llama, qwen2 and qwen3: biases and q/k norms are
// arguments of the same kernels.
constexpr AlgentaKernelInfo kKernels[] = {
    ALGENTA_KERNEL("embed_kernel", "embedding", "rmsnorm.cu"),
    ALGENTA_KERNEL("rmsnorm_residual_kernel", "norm", "rmsnorm.cu"),
    ALGENTA_KERNEL("mma_gemm_kernel", "gemm", "mma_gemm.cu"),
    ALGENTA_KERNEL("cublasLt_matmul_pinned", "gemm", "../lt_gemm.cpp"),
    ALGENTA_KERNEL("split_hi_lo_kernel", "elementwise", "elementwise.cu"),
    ALGENTA_KERNEL("qkv_rope_cache_kernel", "rope", "qkv_rope_cache.cu"),
    ALGENTA_KERNEL("attention_prefill_kernel", "attention", "attention.cu"),
    ALGENTA_KERNEL("attention_decode_slices_kernel", "attention", "attention.cu"),
    ALGENTA_KERNEL("attention_decode_merge_kernel", "attention", "attention.cu"),
    ALGENTA_KERNEL("swiglu_kernel", "activation", "elementwise.cu"),
};

#undef ALGENTA_KERNEL

constexpr AlgentaDescriptor kDescriptor = {
    sizeof(AlgentaDescriptor),
    kPluginName,
    ALGENTA_ROLE_ENGINE,
    TargetPolicy::kTarget,
    ALGENTA_PLUGIN_VERSION,
    kFamilies,
    sizeof(kFamilies) / sizeof(kFamilies[0]),
    kFactRanges,
    sizeof(kFactRanges) / sizeof(kFactRanges[0]),
    kKernels,
    sizeof(kKernels) / sizeof(kKernels[0]),
    kHostLibraries,
    sizeof(kHostLibraries) / sizeof(kHostLibraries[0]),
    nullptr,
};

constexpr AlgentaPluginV1 kTable = plugin::make_plugin_table(
    &kDescriptor, plugin::EngineBinding<CudaEngine, &kDescriptor>::calls());

}  // namespace
}  // namespace algenta::cuda

extern "C" ALGENTA_EXPORT const AlgentaPluginV1* algenta_plugin_entry(uint32_t host_abi_major) {
  return host_abi_major == ALGENTA_ABI_MAJOR ? &algenta::cuda::kTable : nullptr;
}
