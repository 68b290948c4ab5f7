/*
 * The smallest complete plugin a third party can ship: plain C, built against
 * core/include/algenta/plugin_abi.h alone. Tests build it in variants through
 * compile definitions (name, target, ABI major, a constructor marker, the
 * echo engine) and against other copies of the header (the frozen 1.0, 1.1
 * and 1.2 copies, a 1.3 test header) by force-including them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algenta/plugin_abi.h"

#ifndef PLUGIN_NAME
#define PLUGIN_NAME "acme_engine"
#endif
#ifndef PLUGIN_TARGET
#define PLUGIN_TARGET "sm_86"
#endif
#ifndef PLUGIN_ABI_MAJOR
#define PLUGIN_ABI_MAJOR ALGENTA_ABI_MAJOR
#endif

#ifdef PLUGIN_WRITES_MARKER
/* Runs at load time: if this file is ever loaded, the marker appears. */
__attribute__((constructor)) static void write_marker(void) {
  const char* path = getenv("ALGENTA_TEST_MARKER");
  if (path != NULL) {
    FILE* f = fopen(path, "w");
    if (f != NULL) {
      fputs("loaded\n", f);
      fclose(f);
    }
  }
}
#endif

#ifdef PLUGIN_CALLS_DEPENDENCY
/* Keeps libalgenta_testdep.so.1 a NEEDED entry: resolved at load time. */
int algenta_test_dependency_answer(void);
__attribute__((used)) static int (*const kDependency)(void) = algenta_test_dependency_answer;
#endif

struct AlgentaError {
  AlgentaStatusCode code;
  const char* message;
};

static const char* const kFamilies[] = {"llama"};
static const AlgentaKernelInfo kKernels[] = {
    {ALGENTA_KernelInfo_STRUCT_SIZE, "none", "none", "tests/plugins/minimal_plugin.c", "*"}};
static const AlgentaPrecisionPolicy kPrecisions[] = {
    {ALGENTA_PrecisionPolicy_STRUCT_SIZE, ALGENTA_PRECISION_EXACT, "exact",
     ALGENTA_DTYPE_BIT(ALGENTA_DTYPE_F32)}};

static const AlgentaDescriptor kDescriptor = {
    ALGENTA_Descriptor_STRUCT_SIZE, NULL, PLUGIN_NAME, ALGENTA_ROLE_ENGINE, PLUGIN_TARGET, "test",
    kFamilies, 1,
    NULL, 0, sizeof(AlgentaFactRange),
    kKernels, 1, sizeof(AlgentaKernelInfo),
    kPrecisions, 1, sizeof(AlgentaPrecisionPolicy),
    NULL, 0};

static struct AlgentaError kUnimplemented = {ALGENTA_STATUS_UNIMPLEMENTED,
                                             PLUGIN_NAME " runs no models"};
static struct AlgentaError kBadArgs = {ALGENTA_STATUS_INVALID_ARGUMENT,
                                       "Args struct smaller than ABI 1.0 defines"};

static void error_destroy(AlgentaErrorDestroy_Args* args) { (void)args; /* errors are static */ }
static void error_code(AlgentaErrorCode_Args* args) {
  if (args->struct_size >= ALGENTA_ErrorCode_Args_STRUCT_SIZE_1_0) args->code = args->error->code;
}
static void error_message(AlgentaErrorMessage_Args* args) {
  if (args->struct_size < ALGENTA_ErrorMessage_Args_STRUCT_SIZE_1_0) return;
  args->message = args->error->message;
  args->message_size = strlen(args->error->message);
}

#ifdef PLUGIN_ECHO_ENGINE
/* The echo engine: the next token after a chunk is its last token + 1. It
 * walks chunks by the caller's stride, so a newer host's larger chunks work.
 * Built against a header of minor 1 or later it takes host block tables
 * (8 blocks of 16 tokens) and checks each chunk's table; of minor 2 or
 * later it takes engine sampling, and a chunk's sampling "draws" its seed
 * modulo the vocabulary with logprob -1 and no top logprobs. */
#define ECHO_BLOCK_TOKENS 16u
#define ECHO_BLOCKS 8u
static int g_engine;
static int g_block_tables;
static int g_sampling;
static struct AlgentaError kBadTable = {ALGENTA_STATUS_INVALID_ARGUMENT,
                                        "a chunk's block table is missing, short or out of range"};
static AlgentaError* engine_open(AlgentaEngineOpen_Args* args) {
  if (args->struct_size < ALGENTA_EngineOpen_Args_STRUCT_SIZE_1_0) return &kBadArgs;
  args->engine = (AlgentaEngine*)&g_engine;
  args->served_max_context = 128;
  args->vocab_size = 1000;
  args->rounded_weight_values = 0;
  args->max_weight_rounding = 0.0;
  g_block_tables = 0;
#if ALGENTA_ABI_MINOR >= 1
  if (ALGENTA_STRUCT_HAS(args, AlgentaEngineOpen_Args, kv_blocks_total)) {
    g_block_tables = args->host_block_tables == 1;
    args->block_tables_accepted = (uint32_t)g_block_tables;
    args->kv_tokens_per_block = g_block_tables ? ECHO_BLOCK_TOKENS : 0;
    args->kv_blocks_total = g_block_tables ? ECHO_BLOCKS : 0;
  }
#endif
  g_sampling = 0;
#if ALGENTA_ABI_MINOR >= 2
  if (ALGENTA_STRUCT_HAS(args, AlgentaEngineOpen_Args, sampling_accepted)) {
    g_sampling = args->engine_samples == 1;
    args->sampling_accepted = (uint32_t)g_sampling;
  }
#endif
  return NULL;
}
/* The chunk's sampling when the engine took engine sampling, else NULL. */
static const void* chunk_sampling(const AlgentaSequenceChunk* chunk) {
#if ALGENTA_ABI_MINOR >= 2
  if (g_sampling && ALGENTA_STRUCT_HAS(chunk, AlgentaSequenceChunk, sampling)) return chunk->sampling;
#else
  (void)chunk;
#endif
  return NULL;
}
static int32_t echo_next(const AlgentaSequenceChunk* chunk) {
#if ALGENTA_ABI_MINOR >= 2
  const AlgentaSampling* sampling = (const AlgentaSampling*)chunk_sampling(chunk);
  if (sampling != NULL) {
    if (sampling->want_logprob && sampling->logprob != NULL) *sampling->logprob = -1.0;
    if (sampling->top_logprobs > 0 && sampling->top_count != NULL) *sampling->top_count = 0;
    return (int32_t)(sampling->seed % 1000u);
  }
#else
  (void)chunk_sampling;
#endif
  return chunk->tokens[chunk->token_count - 1] + 1;
}
static int table_covers(const AlgentaSequenceChunk* chunk) {
#if ALGENTA_ABI_MINOR >= 1
  uint32_t i;
  if (!ALGENTA_STRUCT_HAS(chunk, AlgentaSequenceChunk, block_count) || chunk->block_table == NULL ||
      (uint64_t)chunk->block_count * ECHO_BLOCK_TOKENS <
          (uint64_t)chunk->start_position + chunk->token_count) {
    return 0;
  }
  for (i = 0; i < chunk->block_count; ++i) {
    if (chunk->block_table[i] >= ECHO_BLOCKS) return 0;
  }
  return 1;
#else
  (void)chunk;
  return 0;
#endif
}
static AlgentaError* engine_step(AlgentaEngineStep_Args* args) {
  size_t i;
  if (args->struct_size < ALGENTA_EngineStep_Args_STRUCT_SIZE_1_0 ||
      args->chunk_stride < ALGENTA_SequenceChunk_STRUCT_SIZE_1_0) {
    return &kBadArgs;
  }
  for (i = 0; i < args->chunk_count && g_block_tables; ++i) {
    const AlgentaSequenceChunk* chunk =
        ALGENTA_ELEMENT_AT(AlgentaSequenceChunk, args->chunks, args->chunk_stride, i);
    if (!table_covers(chunk)) return &kBadTable;
  }
  for (i = 0; i < args->chunk_count; ++i) {
    const AlgentaSequenceChunk* chunk =
        ALGENTA_ELEMENT_AT(AlgentaSequenceChunk, args->chunks, args->chunk_stride, i);
    args->next_tokens[i] = echo_next(chunk);
  }
#if ALGENTA_ABI_MINOR >= 3
  /* No device: nothing was copied from one. */
  if (ALGENTA_STRUCT_HAS(args, AlgentaEngineStep_Args, device_to_host_bytes)) args->device_to_host_bytes = 0;
#endif
  return NULL;
}
static AlgentaError* sequences_free(AlgentaSequencesFree_Args* args) {
  return args->struct_size < ALGENTA_SequencesFree_Args_STRUCT_SIZE_1_0 ? &kBadArgs : NULL;
}
static AlgentaError* memory_report(AlgentaMemoryReport_Args* args) {
  if (args->struct_size < ALGENTA_MemoryReport_Args_STRUCT_SIZE_1_0) return &kBadArgs;
  args->weight_bytes = 1;
  args->kv_tokens_per_block = 16;
  args->kv_blocks_total = 8;
  args->kv_blocks_free = 8;
  return NULL;
}
#else
static AlgentaError* engine_open(AlgentaEngineOpen_Args* args) {
  (void)args;
  return &kUnimplemented;
}
static AlgentaError* engine_step(AlgentaEngineStep_Args* args) {
  (void)args;
  return &kUnimplemented;
}
static AlgentaError* sequences_free(AlgentaSequencesFree_Args* args) {
  (void)args;
  return &kUnimplemented;
}
static AlgentaError* memory_report(AlgentaMemoryReport_Args* args) {
  (void)args;
  return &kUnimplemented;
}
#endif
static AlgentaError* engine_close(AlgentaEngineClose_Args* args) {
  return args->struct_size < ALGENTA_EngineClose_Args_STRUCT_SIZE_1_0 ? &kBadArgs : NULL;
}

static const AlgentaPluginV1 kTable = {
    ALGENTA_PluginV1_STRUCT_SIZE, NULL,          PLUGIN_ABI_MAJOR, ALGENTA_ABI_MINOR,
    &kDescriptor,            error_destroy, error_code,       error_message,
    engine_open,             engine_step,   sequences_free,   memory_report,
    engine_close};

ALGENTA_EXPORT const AlgentaPluginV1* algenta_plugin_entry(uint32_t host_abi_major) {
  return host_abi_major == PLUGIN_ABI_MAJOR ? &kTable : NULL;
}
