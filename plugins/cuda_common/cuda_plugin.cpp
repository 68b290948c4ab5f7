// The CUDA engine plugin's table and entry point, shared by every target.
// Loading the plugin does no CUDA work, so the host can read the descriptor
// on any machine; the engine (cuda_engine.hpp) touches the GPU at open.
#include <memory>

#include "algenta/plugin_abi.h"
#include "cuda_engine.hpp"
#include "fact_ranges.hpp"
#include "plugin_support/plugin_error.hpp"
#include "plugin_support/plugin_table.hpp"
#include "target_policy.hpp"

#define ALGENTA_STR2(x) #x
#define ALGENTA_STR(x) ALGENTA_STR2(x)

// The opaque engine handle the ABI hands out.
struct AlgentaEngine {
  std::unique_ptr<algenta::cuda::CudaEngine> engine;
};

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

CudaEngine& engine_of(AlgentaEngine* handle) {
  if (handle == nullptr || handle->engine == nullptr) {
    throw plugin::StatusError{ALGENTA_STATUS_INVALID_ARGUMENT, "engine is NULL"};
  }
  return *handle->engine;
}

template <typename Args>
void require_args(const Args* args, const char* name) {
  if (args == nullptr) {
    throw plugin::StatusError{ALGENTA_STATUS_INVALID_ARGUMENT, std::string(name) + " is NULL"};
  }
  plugin::require_struct_size(args->struct_size, sizeof(Args), name);
}

AlgentaError* engine_open(AlgentaEngineOpen_Args* args) {
  return plugin::guarded([&] {
    require_args(args, "AlgentaEngineOpen_Args");
    auto handle = std::make_unique<AlgentaEngine>();
    handle->engine = CudaEngine::open(*args, kDescriptor);
    args->engine = handle.release();
  });
}

AlgentaError* engine_step(AlgentaEngineStep_Args* args) {
  return plugin::guarded([&] {
    require_args(args, "AlgentaEngineStep_Args");
    engine_of(args->engine).step(*args);
  });
}

AlgentaError* sequences_free(AlgentaSequencesFree_Args* args) {
  return plugin::guarded([&] {
    require_args(args, "AlgentaSequencesFree_Args");
    engine_of(args->engine).free_sequences(*args);
  });
}

AlgentaError* memory_report(AlgentaMemoryReport_Args* args) {
  return plugin::guarded([&] {
    require_args(args, "AlgentaMemoryReport_Args");
    engine_of(args->engine).report_memory(*args);
  });
}

void engine_close(AlgentaEngine* engine) {
  plugin::error_destroy(plugin::guarded([&] { delete engine; }));
}

constexpr AlgentaPluginV1 kTable = plugin::make_plugin_table(
    &kDescriptor, {engine_open, engine_step, sequences_free, memory_report, engine_close});

}  // namespace
}  // namespace algenta::cuda

extern "C" ALGENTA_EXPORT const AlgentaPluginV1* algenta_plugin_entry(uint32_t host_abi_major) {
  return host_abi_major == ALGENTA_ABI_MAJOR ? &algenta::cuda::kTable : nullptr;
}
