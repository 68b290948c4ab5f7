// The CPU fp32 oracle's table and entry point. Role "oracle": the host never
// selects it automatically; it runs only when asked for by name.
#include "algenta/plugin_abi.h"
#include "plugin_support/plugin_error.hpp"

namespace algenta::oracle {
namespace {

constexpr const char* kFamilies[] = {"llama", "qwen2", "qwen3"};

#define ALGENTA_RANGE(fact, lo, hi) \
  {sizeof(AlgentaFactRange), "*", fact, ALGENTA_FACT_INT_RANGE, lo, hi, nullptr}
#define ALGENTA_ONE_OF(fact, allowed) \
  {sizeof(AlgentaFactRange), "*", fact, ALGENTA_FACT_ONE_OF, 0, 0, allowed}

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

constexpr AlgentaDescriptor kDescriptor = {
    sizeof(AlgentaDescriptor),
    "cpu_oracle",
    ALGENTA_ROLE_ORACLE,
    "cpu",
    ALGENTA_PLUGIN_VERSION,
    kFamilies,
    sizeof(kFamilies) / sizeof(kFamilies[0]),
    kFactRanges,
    sizeof(kFactRanges) / sizeof(kFactRanges[0]),
    nullptr,
    0,
    nullptr,
    0,
    nullptr,
};

[[noreturn]] void model_execution_missing() {
  throw plugin::StatusError{ALGENTA_STATUS_UNIMPLEMENTED,
                            "cpu_oracle: model execution is not implemented in this build "
                            "(descriptor only)"};
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

constexpr AlgentaPluginV1 kTable = {
    sizeof(AlgentaPluginV1), ALGENTA_ABI_MAJOR, ALGENTA_ABI_MINOR, &kDescriptor,
    plugin::error_destroy,   plugin::error_code, plugin::error_message,
    engine_open,             engine_step,        sequences_free,
    memory_report,           engine_close,
};

}  // namespace
}  // namespace algenta::oracle

extern "C" ALGENTA_EXPORT const AlgentaPluginV1* algenta_plugin_entry(uint32_t host_abi_major) {
  return host_abi_major == ALGENTA_ABI_MAJOR ? &algenta::oracle::kTable : nullptr;
}
