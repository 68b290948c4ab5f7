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
  AlgentaError* (*engine_close)(AlgentaEngineClose_Args*);
};

// The ABI 1.0 size of each Args struct: what this plugin needs at least.
template <typename Args> struct AbiSize;
template <> struct AbiSize<AlgentaEngineOpen_Args> {
  static constexpr size_t kV1_0 = ALGENTA_EngineOpen_Args_STRUCT_SIZE_1_0;
};
template <> struct AbiSize<AlgentaEngineStep_Args> {
  static constexpr size_t kV1_0 = ALGENTA_EngineStep_Args_STRUCT_SIZE_1_0;
};
template <> struct AbiSize<AlgentaSequencesFree_Args> {
  static constexpr size_t kV1_0 = ALGENTA_SequencesFree_Args_STRUCT_SIZE_1_0;
};
template <> struct AbiSize<AlgentaMemoryReport_Args> {
  static constexpr size_t kV1_0 = ALGENTA_MemoryReport_Args_STRUCT_SIZE_1_0;
};
template <> struct AbiSize<AlgentaEngineClose_Args> {
  static constexpr size_t kV1_0 = ALGENTA_EngineClose_Args_STRUCT_SIZE_1_0;
};

// The engine calls of a C++ engine class, each wrapped in guarded():
//   static std::unique_ptr<Engine> open(AlgentaEngineOpen_Args&, const AlgentaDescriptor&);
//   void step(AlgentaEngineStep_Args&);
//   void free_sequences(const AlgentaSequencesFree_Args&);
//   void report_memory(AlgentaMemoryReport_Args&);
//   void close();  // releases device work; throws what failed
// The opaque AlgentaEngine handle is the Engine object itself. Every Args
// struct is checked against its ABI 1.0 size; a later field is touched only
// when struct_size covers it (ALGENTA_STRUCT_HAS), so a 1.0 host's structs
// and a newer host's larger ones are both read correctly.
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
    require_struct_size(args->struct_size, AbiSize<Args>::kV1_0, name);
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
      Engine& engine = engine_of(args->engine);
      engine.step(*args);
      if (ALGENTA_STRUCT_HAS(args, AlgentaEngineStep_Args, device_to_host_bytes))
        args->device_to_host_bytes = engine.device_to_host_bytes();
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

  // The engine object is deleted whatever close() reports.
  static AlgentaError* close(AlgentaEngineClose_Args* args) {
    return guarded([&] {
      require_args(args, "AlgentaEngineClose_Args");
      std::unique_ptr<Engine> engine(reinterpret_cast<Engine*>(args->engine));
      if (engine) engine->close();
    });
  }

  static constexpr EngineCalls calls() {
    return {open, step, free_sequences, report_memory, close};
  }
};

constexpr AlgentaPluginV1 make_plugin_table(const AlgentaDescriptor* descriptor,
                                            const EngineCalls& calls) {
  AlgentaPluginV1 table{};
  table.struct_size = ALGENTA_PluginV1_STRUCT_SIZE;
  table.extension = nullptr;
  table.abi_major = ALGENTA_ABI_MAJOR;
  // 0: 1.1 fields are read only when a host passes them, so a 1.0 host
  // drives these plugins too (it just never offers host block tables).
  table.abi_minor = 0;
  table.descriptor = descriptor;
  table.error_destroy = error_destroy;
  table.error_code = error_code;
  table.error_message = error_message;
  table.engine_open = calls.engine_open;
  table.engine_step = calls.engine_step;
  table.sequences_free = calls.sequences_free;
  table.memory_report = calls.memory_report;
  table.engine_close = calls.engine_close;
  return table;
}

}  // namespace algenta::plugin
