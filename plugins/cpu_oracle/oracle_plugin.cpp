// The CPU fp32 oracle's table and entry point. Role "oracle": the host never
// selects it automatically; it runs only when asked for by name. The engine
// itself lives in algenta_oracle_core (oracle_engine.hpp).
#include <iterator>

#include "algenta/plugin_abi.h"
#include "bf16_policy.hpp"
#include "oracle_engine.hpp"
#include "plugin_support/plugin_error.hpp"
#include "plugin_support/plugin_table.hpp"

// Test builds may present the oracle as an engine (role engine, target
// cpu), so that what the host demands of engines (bench: a passing verify
// record) can be tested without a GPU. The vendor build is always the oracle.
#ifndef ALGENTA_ORACLE_ROLE
#define ALGENTA_ORACLE_ROLE ALGENTA_ROLE_ORACLE
#endif

namespace algenta::oracle {
namespace {

constexpr const char* kFamilies[] = {"llama", "qwen2", "qwen3"};

#define ALGENTA_RANGE(fact, lo, hi) \
  {ALGENTA_FactRange_STRUCT_SIZE, "*", fact, ALGENTA_FACT_INT_RANGE, lo, hi, nullptr}
#define ALGENTA_ONE_OF(fact, allowed) \
  {ALGENTA_FactRange_STRUCT_SIZE, "*", fact, ALGENTA_FACT_ONE_OF, 0, 0, allowed}

// fp32 reference arithmetic takes any size that fits in memory; what it
// refuses are the model features it does not compute.
constexpr AlgentaFactRange kFactRanges[] = {
    ALGENTA_RANGE("hidden_size", 1, 65536),
    ALGENTA_RANGE("intermediate_size", 1, 262144),
    ALGENTA_RANGE("head_dim", 2, 1024),
    ALGENTA_RANGE("num_attention_heads", 1, 1024),
    ALGENTA_RANGE("num_key_value_heads", 1, 1024),
    ALGENTA_RANGE("num_hidden_layers", 1, 1024),
    ALGENTA_RANGE("vocab_size", 2, 1048576),
    ALGENTA_RANGE("max_position_embeddings", 1, 1048576),
    ALGENTA_RANGE("mlp_bias", 0, 0),
    ALGENTA_RANGE("sliding_window", 0, 0),
    ALGENTA_ONE_OF("rope_scaling", "none,llama3,linear"),
    ALGENTA_ONE_OF("hidden_act", "silu"),
    ALGENTA_ONE_OF("mlp_kind", "dense"),
    ALGENTA_ONE_OF("attention_kind", "grouped_query"),
};

#undef ALGENTA_RANGE
#undef ALGENTA_ONE_OF

#define ALGENTA_KERNEL(name, role, module, families) \
  {ALGENTA_KernelInfo_STRUCT_SIZE, name, role, "cpu_oracle/" module, families}

// What the oracle computes, by operation. The bias add runs for qwen2 always
// and for llama/qwen3 checkpoints with attention_bias; the q/k norm is qwen3's.
constexpr AlgentaKernelInfo kKernels[] = {
    ALGENTA_KERNEL("embedding_widen_f32", "embedding", "matmul.cpp", "*"),
    ALGENTA_KERNEL("matmul_rows_fixed_order_f32acc", "gemm", "matmul.cpp", "*"),
    ALGENTA_KERNEL("rmsnorm_f32", "norm", "ops.cpp", "*"),
    ALGENTA_KERNEL("head_rmsnorm_qk_f32", "norm", "ops.cpp", "qwen3"),
    ALGENTA_KERNEL("bias_add_f32", "elementwise", "ops.cpp", "llama,qwen2,qwen3"),
    ALGENTA_KERNEL("rope_rotate_half_f32", "rope", "rope.cpp", "*"),
    ALGENTA_KERNEL("attention_causal_gqa_f32", "attention", "ops.cpp", "*"),
    ALGENTA_KERNEL("swiglu_f32", "activation", "ops.cpp", "*"),
    ALGENTA_KERNEL("residual_add_f32", "elementwise", "ops.cpp", "*"),
    ALGENTA_KERNEL("argmax_lowest_id", "sampling", "../decoder_common/greedy_choice.cpp", "*"),
};

#undef ALGENTA_KERNEL

// fp32 holds every bf16, f16 and f32 value exactly. The bf16 policy's test
// build also runs bf16, holding weights as a bf16 engine does.
constexpr AlgentaPrecisionPolicy kPrecisions[] = {
    {ALGENTA_PrecisionPolicy_STRUCT_SIZE, ALGENTA_PRECISION_EXACT, "exact",
     ALGENTA_DTYPE_BIT(ALGENTA_DTYPE_F32) | ALGENTA_DTYPE_BIT(ALGENTA_DTYPE_BF16) |
         ALGENTA_DTYPE_BIT(ALGENTA_DTYPE_F16)},
#if ALGENTA_ORACLE_BF16_POLICY
    {ALGENTA_PrecisionPolicy_STRUCT_SIZE, ALGENTA_PRECISION_BF16, "bf16",
     ALGENTA_DTYPE_BIT(ALGENTA_DTYPE_BF16)},
#endif
};

constexpr AlgentaDescriptor kDescriptor = {
    .struct_size = ALGENTA_Descriptor_STRUCT_SIZE,
    .extension = nullptr,
    .name = ALGENTA_ORACLE_PLUGIN_NAME,
    .role = ALGENTA_ORACLE_ROLE,
    .target = "cpu",
    .version = ALGENTA_PLUGIN_VERSION,
    .families = kFamilies,
    .family_count = std::size(kFamilies),
    .fact_ranges = kFactRanges,
    .fact_range_count = std::size(kFactRanges),
    .fact_range_stride = sizeof(AlgentaFactRange),
    .kernels = kKernels,
    .kernel_count = std::size(kKernels),
    .kernel_stride = sizeof(AlgentaKernelInfo),
    .precisions = kPrecisions,
    .precision_count = std::size(kPrecisions),
    .precision_stride = sizeof(AlgentaPrecisionPolicy),
    .host_libraries = nullptr,
    .host_library_count = 0,
};

using Binding = plugin::EngineBinding<OracleEngine, &kDescriptor>;

#if ALGENTA_ORACLE_BF16_POLICY
// The policy is fixed for the process before the first engine computes
// (bf16_policy.hpp); a policy the descriptor does not list is left to
// open's own refusal.
AlgentaError* open_under_policy(AlgentaEngineOpen_Args* args) {
  AlgentaError* refused = plugin::guarded([&] {
    if (args == nullptr || args->struct_size < ALGENTA_EngineOpen_Args_STRUCT_SIZE_1_0) return;
    for (const AlgentaPrecisionPolicy& policy : kPrecisions) {
      if (policy.precision == args->precision) run_precision_policy(args->precision, kDescriptor.name);
    }
  });
  return refused != nullptr ? refused : Binding::open(args);
}

constexpr plugin::EngineCalls engine_calls() {
  plugin::EngineCalls calls = Binding::calls();
  calls.engine_open = open_under_policy;
  return calls;
}
#else
constexpr plugin::EngineCalls engine_calls() { return Binding::calls(); }
#endif

constexpr AlgentaPluginV1 kTable = plugin::make_plugin_table(&kDescriptor, engine_calls());

}  // namespace
}  // namespace algenta::oracle

extern "C" ALGENTA_EXPORT const AlgentaPluginV1* algenta_plugin_entry(uint32_t host_abi_major) {
  return host_abi_major == ALGENTA_ABI_MAJOR ? &algenta::oracle::kTable : nullptr;
}
