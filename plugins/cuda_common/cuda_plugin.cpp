// The CUDA engine plugin's table and entry point, shared by every target.
// Loading the plugin does no CUDA work, so the host can read the descriptor
// on any machine; the engine (cuda_engine.hpp) touches the GPU at open.
#include <iterator>
#include <type_traits>

#include <cuda_bf16.h>

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
  {ALGENTA_KernelInfo_STRUCT_SIZE, name, role, "cuda_common/kernels/" module, "*"}

// Every kernel the engine launches, by the module that defines it. The
// decoder is the same for llama, qwen2 and qwen3: biases and q/k norms are
// arguments of the same kernels.
constexpr AlgentaKernelInfo kKernels[] = {
    ALGENTA_KERNEL("embed_kernel", "embedding", "rmsnorm.cu"),
    ALGENTA_KERNEL("rmsnorm_residual_kernel", "norm", "rmsnorm.cu"),
    ALGENTA_KERNEL("mma_gemm_stream_kernel", "gemm", "mma_gemm.cu"),
    ALGENTA_KERNEL("cublasLt_matmul_pinned", "gemm", "../lt_gemm.cpp"),
    ALGENTA_KERNEL("split_hi_lo_kernel", "elementwise", "elementwise.cu"),
    ALGENTA_KERNEL("qkv_rope_cache_kernel", "rope", "qkv_rope_cache.cu"),
    ALGENTA_KERNEL("attention_prefill_tiled_kernel", "attention", "attention.cu"),
    ALGENTA_KERNEL("attention_prefill_kernel", "attention", "attention.cu"),
    ALGENTA_KERNEL("attention_decode_kernel", "attention", "attention.cu"),
    ALGENTA_KERNEL("argmax_slices_kernel", "sampling", "greedy_argmax.cu"),
    ALGENTA_KERNEL("argmax_rows_kernel", "sampling", "greedy_argmax.cu"),
    ALGENTA_KERNEL("swiglu_kernel", "activation", "elementwise.cu"),
    // Engine sampling (ABI 1.2): the host sampler's pipeline on the device.
    ALGENTA_KERNEL("sampler_prepare_kernel", "sampling", "sampler.cu"),
    ALGENTA_KERNEL("sampler_draw_kernel", "sampling", "sampler.cu"),
    ALGENTA_KERNEL("sampler_logprobs_kernel", "sampling", "sampler.cu"),
    ALGENTA_KERNEL("cub::DeviceSegmentedRadixSort", "sampling", "sampler.cu"),
    // Last: launched only where bf16 mma.sync exists (not on sm_75's f16 build).
    ALGENTA_KERNEL("attention_prefill_mma_kernel", "attention", "attention_prefill_mma.cu"),
};
constexpr std::size_t kKernelCount =
    std::size(kKernels) - (std::is_same_v<TargetPolicy::Element, __nv_bfloat16> ? 0 : 1);

#undef ALGENTA_KERNEL

// Both policies hold weights in the target's element type only: a
// checkpoint in another type runs when every value converts exactly, or
// with consent. `bf16` (bf16 GEMM and attention inputs, fp32 accumulation
// and residual; device_forward.hpp) is declared where the weights are bf16
// (sm_80 and later), after `exact`, the default.
constexpr AlgentaPrecisionPolicy kPrecisions[] = {
    {ALGENTA_PrecisionPolicy_STRUCT_SIZE, ALGENTA_PRECISION_EXACT, "exact",
     ALGENTA_DTYPE_BIT(TargetPolicy::kWeightDtype)},
    {ALGENTA_PrecisionPolicy_STRUCT_SIZE, ALGENTA_PRECISION_BF16, "bf16",
     ALGENTA_DTYPE_BIT(TargetPolicy::kWeightDtype)},
};
constexpr std::size_t kPrecisionCount =
    std::is_same_v<TargetPolicy::Element, __nv_bfloat16> ? 2 : 1;

constexpr AlgentaDescriptor kDescriptor = {
    .struct_size = ALGENTA_Descriptor_STRUCT_SIZE,
    .extension = nullptr,
    .name = kPluginName,
    .role = ALGENTA_ROLE_ENGINE,
    .target = TargetPolicy::kTarget,
    .version = ALGENTA_PLUGIN_VERSION,
    .families = kFamilies,
    .family_count = std::size(kFamilies),
    .fact_ranges = kFactRanges,
    .fact_range_count = std::size(kFactRanges),
    .fact_range_stride = sizeof(AlgentaFactRange),
    .kernels = kKernels,
    .kernel_count = kKernelCount,
    .kernel_stride = sizeof(AlgentaKernelInfo),
    .precisions = kPrecisions,
    .precision_count = kPrecisionCount,
    .precision_stride = sizeof(AlgentaPrecisionPolicy),
    .host_libraries = kHostLibraries,
    .host_library_count = std::size(kHostLibraries),
};

constexpr AlgentaPluginV1 kTable = plugin::make_plugin_table(
    &kDescriptor, plugin::EngineBinding<CudaEngine, &kDescriptor>::calls());

}  // namespace
}  // namespace algenta::cuda

extern "C" ALGENTA_EXPORT const AlgentaPluginV1* algenta_plugin_entry(uint32_t host_abi_major) {
  return host_abi_major == ALGENTA_ABI_MAJOR ? &algenta::cuda::kTable : nullptr;
}
