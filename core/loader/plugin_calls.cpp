#include "loader/plugin_calls.hpp"

namespace algenta::loader {

PluginFailure take_error(const AlgentaPluginV1& table, AlgentaError* error) {
  AlgentaErrorCode_Args code{};
  code.struct_size = ALGENTA_ErrorCode_Args_STRUCT_SIZE;
  code.error = error;
  code.code = ALGENTA_STATUS_INTERNAL;  // if the plugin leaves it unset
  table.error_code(&code);

  AlgentaErrorMessage_Args message{};
  message.struct_size = ALGENTA_ErrorMessage_Args_STRUCT_SIZE;
  message.error = error;
  table.error_message(&message);
  PluginFailure failure{code.code, {}};
  if (message.message != nullptr) failure.message.assign(message.message, message.message_size);

  AlgentaErrorDestroy_Args destroy{};
  destroy.struct_size = ALGENTA_ErrorDestroy_Args_STRUCT_SIZE;
  destroy.error = error;
  table.error_destroy(&destroy);
  return failure;
}

std::optional<PluginFailure> close_engine(const AlgentaPluginV1& table, AlgentaEngine* engine) {
  AlgentaEngineClose_Args args{};
  args.struct_size = ALGENTA_EngineClose_Args_STRUCT_SIZE;
  args.engine = engine;
  AlgentaError* error = table.engine_close(&args);
  if (error == nullptr) return std::nullopt;
  return take_error(table, error);
}

}  // namespace algenta::loader
