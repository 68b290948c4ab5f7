// The CPU fp32 oracle's table and entry point. Role "oracle": the host never
// selects it automatically; it runs only when asked for by name.
#include "algenta/plugin_abi.h"
#include "plugin_support/plugin_error.hpp"

namespace algenta::oracle {
namespace {

constexpr const char* kFamilies[] = {"llama", "qwen2", "qwen3"};

constexpr AlgentaDescriptor kDescriptor = {
    sizeof(AlgentaDescriptor),
    "cpu_oracle",
    ALGENTA_ROLE_ORACLE,
    "cpu",
    ALGENTA_PLUGIN_VERSION,
    kFamilies,
    sizeof(kFamilies) / sizeof(kFamilies[0]),
    nullptr,
    0,
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
