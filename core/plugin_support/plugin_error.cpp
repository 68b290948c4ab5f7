#include "plugin_support/plugin_error.hpp"

namespace algenta::plugin {
namespace {
// Returned when allocating an error itself fails; never freed.
AlgentaError g_error_allocation_failed{ALGENTA_STATUS_OUT_OF_MEMORY, "out of memory"};
}  // namespace

AlgentaError* make_error(AlgentaStatusCode code, std::string message) {
  try {
    return new AlgentaError{code, std::move(message)};
  } catch (...) {
    return &g_error_allocation_failed;
  }
}

void destroy_error(AlgentaError* error) {
  if (error != &g_error_allocation_failed) delete error;
}

void error_destroy(AlgentaErrorDestroy_Args* args) {
  if (args == nullptr || args->struct_size < ALGENTA_ErrorDestroy_Args_STRUCT_SIZE_1_0) return;
  destroy_error(args->error);
}

void error_code(AlgentaErrorCode_Args* args) {
  if (args == nullptr || args->struct_size < ALGENTA_ErrorCode_Args_STRUCT_SIZE_1_0) return;
  args->code = args->error == nullptr ? ALGENTA_STATUS_OK : args->error->code;
}

void error_message(AlgentaErrorMessage_Args* args) {
  if (args == nullptr || args->struct_size < ALGENTA_ErrorMessage_Args_STRUCT_SIZE_1_0) return;
  static const char kEmpty[] = "";
  args->message = args->error == nullptr ? kEmpty : args->error->message.c_str();
  args->message_size = args->error == nullptr ? 0 : args->error->message.size();
}

void require_struct_size(size_t given, size_t needed, const char* struct_name) {
  if (given < needed) {
    throw StatusError{ALGENTA_STATUS_INVALID_ARGUMENT,
                      std::string(struct_name) + ".struct_size is " + std::to_string(given) +
                          ", this plugin needs at least " + std::to_string(needed)};
  }
}

}  // namespace algenta::plugin
