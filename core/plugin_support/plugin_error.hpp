// Error objects and exception guards for plugins written in C++.
// Every exported call is wrapped in guarded() so no exception crosses the ABI.
#pragma once

#include <new>
#include <string>
#include <utility>

#include "algenta/plugin_abi.h"

struct AlgentaError {
  AlgentaStatusCode code;
  std::string message;
};

namespace algenta::plugin {

// Thrown inside a plugin to return a specific status code.
struct StatusError {
  AlgentaStatusCode code;
  std::string message;
};

AlgentaError* make_error(AlgentaStatusCode code, std::string message);

// The three error calls every table carries. Each ignores an Args struct
// too small for ABI 1.0 (they have no way to report it).
void error_destroy(AlgentaErrorDestroy_Args* args);
void error_code(AlgentaErrorCode_Args* args);
void error_message(AlgentaErrorMessage_Args* args);
void destroy_error(AlgentaError* error);

// Runs body(); turns every exception into an AlgentaError*.
template <typename Body>
AlgentaError* guarded(Body&& body) noexcept {
  try {
    std::forward<Body>(body)();
    return nullptr;
  } catch (const StatusError& e) {
    return make_error(e.code, e.message);
  } catch (const std::bad_alloc&) {
    return make_error(ALGENTA_STATUS_OUT_OF_MEMORY, "host memory exhausted");
  } catch (const std::exception& e) {
    return make_error(ALGENTA_STATUS_INTERNAL, e.what());
  } catch (...) {
    return make_error(ALGENTA_STATUS_INTERNAL, "unknown exception inside plugin");
  }
}

// Checks an Args struct is large enough for the ABI version this plugin
// needs (the version's STRUCT_SIZE constant, never this build's sizeof).
void require_struct_size(size_t given, size_t needed, const char* struct_name);

// Element i of a caller's array whose elements are `stride` bytes apart.
template <typename T>
const T& element_at(const T* base, size_t stride, size_t index) {
  return *ALGENTA_ELEMENT_AT(T, base, stride, index);
}

}  // namespace algenta::plugin
