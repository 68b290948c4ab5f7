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

void error_destroy(AlgentaError* error) {
  if (error != &g_error_allocation_failed) delete error;
}

AlgentaStatusCode error_code(const AlgentaError* error) {
  return error == nullptr ? ALGENTA_STATUS_OK : error->code;
}

void error_message(const AlgentaError* error, const char** message, size_t* size) {
  static const char kEmpty[] = "";
  *message = error == nullptr ? kEmpty : error->message.c_str();
  *size = error == nullptr ? 0 : error->message.size();
}

void require_struct_size(size_t given, size_t needed, const char* struct_name) {
  if (given < needed) {
    throw StatusError{ALGENTA_STATUS_INVALID_ARGUMENT,
                      std::string(struct_name) + ".struct_size is " + std::to_string(given) +
                          ", this plugin needs at least " + std::to_string(needed)};
  }
}

}  // namespace algenta::plugin
