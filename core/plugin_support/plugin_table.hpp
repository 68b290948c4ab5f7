// The function table of a C++ plugin: its descriptor, the shared error
// calls, and its own engine calls. One definition, so every plugin fills the
// table in the same order.
#pragma once

#include "algenta/plugin_abi.h"
#include "plugin_support/plugin_error.hpp"

namespace algenta::plugin {

struct EngineCalls {
  AlgentaError* (*engine_open)(AlgentaEngineOpen_Args*);
  AlgentaError* (*engine_step)(AlgentaEngineStep_Args*);
  AlgentaError* (*sequences_free)(AlgentaSequencesFree_Args*);
  AlgentaError* (*memory_report)(AlgentaMemoryReport_Args*);
  void (*engine_close)(AlgentaEngine*);
};

constexpr AlgentaPluginV1 make_plugin_table(const AlgentaDescriptor* descriptor,
                                            const EngineCalls& calls) {
  return {sizeof(AlgentaPluginV1), ALGENTA_ABI_MAJOR,  ALGENTA_ABI_MINOR,
          descriptor,              error_destroy,      error_code,
          error_message,           calls.engine_open,  calls.engine_step,
          calls.sequences_free,    calls.memory_report, calls.engine_close};
}

}  // namespace algenta::plugin
