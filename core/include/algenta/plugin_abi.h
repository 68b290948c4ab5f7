/*
 * algenta plugin ABI: the only interface between algenta-host and an engine.
 *
 * Plain C, no exceptions, no C++ types. Modelled on PJRT's C API: every call
 * takes one `*_Args` struct that starts with `struct_size`, returns NULL on
 * success or an opaque AlgentaError* the caller must destroy.
 *
 * Version rule: the host calls algenta_plugin_entry(ALGENTA_ABI_MAJOR); the
 * plugin returns its function table only when the majors are equal (else NULL).
 * The host then requires host minor >= table->abi_minor (the minor the plugin
 * needs). Fields are only ever appended; a reader touches a field only when
 * struct_size covers it (ALGENTA_STRUCT_HAS). See ABI_CHANGELOG.md.
 *
 * Ownership:
 *  - Everything a plugin hands out through its descriptor is static and lives
 *    as long as the plugin is loaded.
 *  - Errors are allocated by the plugin and freed by the host through
 *    AlgentaPluginV1.error_destroy. The message pointer stays valid until then.
 *  - Inputs (Args structs and the buffers they point to) stay owned by the
 *    caller, on success and on failure; a plugin copies what it keeps.
 *  - Output buffers are allocated by the caller; the plugin fills them.
 */
#ifndef ALGENTA_PLUGIN_ABI_H
#define ALGENTA_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ALGENTA_ABI_MAJOR 1
#define ALGENTA_ABI_MINOR 0

/* The single exported symbol of a plugin. */
#define ALGENTA_PLUGIN_ENTRY_SYMBOL "algenta_plugin_entry"

/* True when a struct of the reported size contains `field`. */
#define ALGENTA_STRUCT_HAS(ptr, type, field)                                    \
  ((ptr)->struct_size >= offsetof(type, field) + sizeof(((type*)0)->field))

#if defined(__GNUC__)
#define ALGENTA_EXPORT __attribute__((visibility("default")))
#else
#define ALGENTA_EXPORT
#endif

/* ---- errors ------------------------------------------------------------ */

typedef enum AlgentaStatusCode {
  ALGENTA_STATUS_OK = 0,
  ALGENTA_STATUS_INVALID_ARGUMENT = 1, /* caller passed something malformed */
  ALGENTA_STATUS_UNSUPPORTED = 2,      /* outside the declared fact ranges */
  ALGENTA_STATUS_OUT_OF_MEMORY = 3,    /* host or device memory exhausted */
  ALGENTA_STATUS_UNIMPLEMENTED = 4,    /* this plugin does not provide the call */
  ALGENTA_STATUS_DEVICE = 5,           /* driver or device failure */
  ALGENTA_STATUS_IO = 6,               /* reading a checkpoint failed */
  ALGENTA_STATUS_INTERNAL = 7          /* a bug: please report it */
} AlgentaStatusCode;

typedef struct AlgentaError AlgentaError; /* opaque, plugin-allocated */

/* ---- descriptor -------------------------------------------------------- */

typedef enum AlgentaRole {
  ALGENTA_ROLE_ENGINE = 1, /* serves traffic; eligible for automatic selection */
  ALGENTA_ROLE_ORACLE = 2  /* reference for verification; never auto-selected */
} AlgentaRole;

typedef enum AlgentaFactKind {
  ALGENTA_FACT_INT_RANGE = 1, /* min_value <= value <= max_value */
  ALGENTA_FACT_ONE_OF = 2     /* value is one of the comma-separated `allowed` */
} AlgentaFactKind;

/* One row of the plugin's declared fact ranges (a table, not code). */
typedef struct AlgentaFactRange {
  size_t struct_size;
  const char* family; /* "llama", "qwen2", ... or "*" for every family */
  const char* fact;   /* fact name as ModelFacts spells it, e.g. "head_dim" */
  AlgentaFactKind kind;
  int64_t min_value;
  int64_t max_value;
  const char* allowed; /* for ALGENTA_FACT_ONE_OF, e.g. "none,llama3,linear" */
} AlgentaFactRange;

/* One entry of the kernel inventory. */
typedef struct AlgentaKernelInfo {
  size_t struct_size;
  const char* name;     /* e.g. "rmsnorm_residual_f32" */
  const char* role;     /* e.g. "gemm", "attention", "norm" */
  const char* module;   /* source module that defines it */
  const char* families; /* comma-separated families that use it, or "*" */
} AlgentaKernelInfo;

/* Optional extension chain: what one target adds without touching the table. */
typedef struct AlgentaExtension {
  size_t struct_size;
  uint32_t type; /* registry in ABI_CHANGELOG.md; unknown types are skipped */
  const struct AlgentaExtension* next;
} AlgentaExtension;

typedef struct AlgentaDescriptor {
  size_t struct_size;
  const char* name;   /* manifest name, e.g. "cuda_sm90a" */
  AlgentaRole role;
  const char* target; /* "sm_75", "sm_80", "sm_89", "sm_90a", "cpu" */
  const char* version; /* plugin build version, free text */
  const char* const* families;
  size_t family_count;
  const AlgentaFactRange* fact_ranges;
  size_t fact_range_count;
  const AlgentaKernelInfo* kernels;
  size_t kernel_count;
  const char* const* host_libraries; /* sonames loaded before this plugin */
  size_t host_library_count;
  const AlgentaExtension* extensions;
} AlgentaDescriptor;

/* ---- engine calls ------------------------------------------------------ */

typedef struct AlgentaEngine AlgentaEngine; /* opaque, plugin-owned */

typedef struct AlgentaEngineOpen_Args {
  size_t struct_size;
  const char* checkpoint_dir; /* a converted (prepared) checkpoint */
  uint32_t device_ordinal;
  uint32_t max_context;     /* in: tokens per sequence, 0 = model maximum;
                               out: the context the engine serves */
  uint32_t max_sequences;   /* concurrently resident sequences, 0 = engine default */
  uint64_t kv_cache_bytes;  /* 0 = size from free device memory */
  AlgentaEngine* engine;    /* out */
  uint32_t vocab_size;      /* out: logits per position */
} AlgentaEngineOpen_Args;

/* Which logits a chunk asks for. */
typedef enum AlgentaLogitsRequest {
  ALGENTA_LOGITS_NONE = 0,
  ALGENTA_LOGITS_LAST = 1, /* vocab floats: the chunk's last position */
  ALGENTA_LOGITS_ALL = 2   /* token_count * vocab floats, in position order */
} AlgentaLogitsRequest;

/* One sequence's part of a ragged batch step: a prefill chunk or one decode
 * token. Positions start_position .. start_position + token_count - 1.
 * A sequence starts with a chunk at position 0; each later chunk starts where
 * the sequence's cached tokens end. */
typedef struct AlgentaSequenceChunk {
  size_t struct_size;
  uint64_t sequence_id;
  const int32_t* tokens;
  uint32_t token_count;
  uint32_t start_position;
  uint32_t want_logits; /* AlgentaLogitsRequest */
} AlgentaSequenceChunk;

typedef struct AlgentaEngineStep_Args {
  size_t struct_size;
  AlgentaEngine* engine;
  const AlgentaSequenceChunk* chunks;
  size_t chunk_count;
  int32_t* next_tokens; /* out: per chunk, the greedy token after its last
                           position (ties -> lowest id) */
  float* logits;        /* out, optional: the requested logits of every chunk,
                           concatenated in chunk order */
  size_t logits_capacity; /* floats available at `logits` */
} AlgentaEngineStep_Args;

typedef struct AlgentaSequencesFree_Args {
  size_t struct_size;
  AlgentaEngine* engine;
  const uint64_t* sequence_ids;
  size_t sequence_count;
} AlgentaSequencesFree_Args;

typedef struct AlgentaMemoryReport_Args {
  size_t struct_size;
  AlgentaEngine* engine;
  uint64_t weight_bytes;    /* out */
  uint64_t kv_cache_bytes;  /* out */
  uint64_t workspace_bytes; /* out */
  uint64_t device_free_bytes;  /* out, 0 for CPU plugins */
  uint64_t device_total_bytes; /* out, 0 for CPU plugins */
} AlgentaMemoryReport_Args;

typedef struct AlgentaPluginV1 {
  size_t struct_size;
  uint32_t abi_major;
  uint32_t abi_minor; /* the host minor this plugin needs at least */
  const AlgentaDescriptor* descriptor;

  /* errors: owned by the plugin until error_destroy */
  void (*error_destroy)(AlgentaError* error);
  AlgentaStatusCode (*error_code)(const AlgentaError* error);
  void (*error_message)(const AlgentaError* error, const char** message,
                        size_t* message_size);

  /* engines: every call returns NULL on success */
  AlgentaError* (*engine_open)(AlgentaEngineOpen_Args* args);
  AlgentaError* (*engine_step)(AlgentaEngineStep_Args* args);
  AlgentaError* (*sequences_free)(AlgentaSequencesFree_Args* args);
  AlgentaError* (*memory_report)(AlgentaMemoryReport_Args* args);
  void (*engine_close)(AlgentaEngine* engine);
} AlgentaPluginV1;

/* The entry point: NULL when host_abi_major differs from the plugin's. */
typedef const AlgentaPluginV1* (*AlgentaPluginEntryFn)(uint32_t host_abi_major);

#ifdef __cplusplus
}
#endif

#endif /* ALGENTA_PLUGIN_ABI_H */
