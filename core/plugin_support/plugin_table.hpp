// The function table of a C++ plugin: its descriptor, the shared error
// calls, and its own engine calls. One definition, so every plugin fills the
// table in the same order.
#pragma once

#include <memory>
#include <string>

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

// The engine calls of a C++ engine class, each wrapped in guarded():
//   static std::unique_ptr<Engine> open(AlgentaEngineOpen_Args&, const AlgentaDescriptor&);
//   void step(AlgentaEngineStep_Args&);
//   void free_sequences(const AlgentaSequencesFree_Args&);
//   void report_memory(AlgentaMemoryReport_Args&);
// The opaque AlgentaEngine handle is the Engine object itself.
template <typename Engine, const AlgentaDescriptor* kDescriptor>
struct EngineBinding {
  static Engine& engine_of(AlgentaEngine* handle) {
    if (handle == nullptr) throw StatusError{ALGENTA_STATUS_INVALID_ARGUMENT, "engine is NULL"};
    return *reinterpret_cast<Engine*>(handle);
  }

  template <typename Args>
  static void require_args(const Args* args, const char* name) {
    if (args == nullptr) {
      throw StatusError{ALGENTA_STATUS_INVALID_ARGUMENT, std::string(name) + " is NULL"};
    }
    require_struct_size(args->struct_size, sizeof(Args), name);
  }

  static AlgentaError* open(AlgentaEngineOpen_Args* args) {
    return guarded([&] {
      require_args(args, "AlgentaEngineOpen_Args");
      std::unique_ptr<Engine> engine = Engine::open(*args, *kDescriptor);
      args->engine = reinterpret_cast<AlgentaEngine*>(engine.release());
    });
  }

  static AlgentaError* step(AlgentaEngineStep_Args* args) {
    return guarded([&] {
      require_args(args, "AlgentaEngineStep_Args");
      engine_of(args->engine).step(*args);
    });
  }

  static AlgentaError* free_sequences(AlgentaSequencesFree_Args* args) {
    return guarded([&] {
      require_args(args, "AlgentaSequencesFree_Args");
      engine_of(args->engine).free_sequences(*args);
    });
  }

  static AlgentaError* report_memory(AlgentaMemoryReport_Args* args) {
    return guarded([&] {
      require_args(args, "AlgentaMemoryReport_Args");
      engine_of(args->engine).report_memory(*args);
    });
  }

  static void close(AlgentaEngine* engine) {
    error_destroy(guarded([&] { delete reinterpret_cast<Engine*>(engine); }));
  }

  static constexpr EngineCalls calls() {
    return {open, step, free_sequences, report_memory, close};
  }
};

constexpr AlgentaPluginV1 make_plugin_table(const AlgentaDescriptor* descriptor,
                                            const EngineCalls& calls) {
  return {sizeof(AlgentaPluginV1), ALGENTA_ABI_MAJOR,  ALGENTA_ABI_MINOR,
          descriptor,              error_destroy,      error_code,
          error_message,           calls.engine_open,  calls.engine_step,
          calls.sequences_free,    calls.memory_report, calls.engine_close};
}

}  // namespace algenta::plugin
