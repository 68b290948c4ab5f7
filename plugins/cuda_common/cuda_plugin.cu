// The CUDA engine plugin's table and entry point, shared by every target.
// Static data only: loading this file does no CUDA work, so the host can read
// the descriptor on any machine.
#include "algenta/plugin_abi.h"
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

constexpr AlgentaKernelInfo kKernels[] = {
    {sizeof(AlgentaKernelInfo), "rmsnorm_kernel", "norm", "cuda_common/kernels/rmsnorm.cu", "*"},
    {sizeof(AlgentaKernelInfo), "decode_gemm_kernel", "gemm", "cuda_common/kernels/decode_gemm.cu",
     "*"},
};

constexpr AlgentaDescriptor kDescriptor = {
    sizeof(AlgentaDescriptor),
    TargetPolicy::kPluginName,
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

[[noreturn]] void model_execution_missing() {
  throw plugin::StatusError{
      ALGENTA_STATUS_UNIMPLEMENTED,
      std::string(TargetPolicy::kPluginName) +
          ": model execution is not implemented in this build (descriptor only)"};
}

AlgentaError* engine_open(AlgentaEngineOpen_Args* args) {
  return plugin::guarded([&] {
    plugin::require_struct_size(args->struct_size, sizeof(AlgentaEngineOpen_Args),
                                "AlgentaEngineOpen_Args");
    model_execution_missing();
  });
}

AlgentaError* engine_step(AlgentaEngineStep_Args*) {
  return plugin::guarded([] { model_execution_missing(); });
}

AlgentaError* sequences_free(AlgentaSequencesFree_Args*) {
  return plugin::guarded([] { model_execution_missing(); });
}

AlgentaError* memory_report(AlgentaMemoryReport_Args*) {
  return plugin::guarded([] { model_execution_missing(); });
}

void engine_close(AlgentaEngine*) {}

constexpr AlgentaPluginV1 kTable = plugin::make_plugin_table(
    &kDescriptor, {engine_open, engine_step, sequences_free, memory_report, engine_close});

}  // namespace
}  // namespace algenta::cuda

extern "C" ALGENTA_EXPORT const AlgentaPluginV1* algenta_plugin_entry(uint32_t host_abi_major) {
  return host_abi_major == ALGENTA_ABI_MAJOR ? &algenta::cuda::kTable : nullptr;
}
