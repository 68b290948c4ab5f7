// Pins the layout of ABI 1.0 to 1.3 on LP64 Linux: the size and the offset
// of every field of every struct, and each struct's ALGENTA_*_STRUCT_SIZE_1_0
// to _1_3. Built against core/include's header and, force-included, against
// the frozen copies tests/abi/1.0 to 1.3 and the 1.4 test header, so neither
// the header nor a later minor
// can move a released field. The pins of a minor apply to headers of that
// minor and later; sizeof is pinned only at the minor it belongs to (a later
// minor may grow a struct).
#include <cstddef>
#include <cstdio>

#include "algenta/plugin_abi.h"

static_assert(sizeof(void*) == 8, "the pins below are for LP64 targets");

namespace {

int failures = 0;
int pins = 0;

void pin(const char* what, std::size_t actual, std::size_t expected) {
  ++pins;
  if (actual == expected) return;
  std::printf("FAIL %s is %zu, the released ABI fixes it at %zu\n", what, actual, expected);
  ++failures;
}

}  // namespace

#define PIN_OFFSET(type, field, expected) pin(#type "." #field " offset", offsetof(type, field), expected)
// sizeof(type) at 1.0 to 1.3; each only in a header of that very minor.
#define PIN_SIZES(type, size_1_0, size_1_1, size_1_2, size_1_3)                          \
  if (ALGENTA_ABI_MINOR == 0) pin("sizeof(" #type ") at 1.0", sizeof(type), size_1_0); \
  if (ALGENTA_ABI_MINOR == 1) pin("sizeof(" #type ") at 1.1", sizeof(type), size_1_1); \
  if (ALGENTA_ABI_MINOR == 2) pin("sizeof(" #type ") at 1.2", sizeof(type), size_1_2); \
  if (ALGENTA_ABI_MINOR == 3) pin("sizeof(" #type ") at 1.3", sizeof(type), size_1_3)
#define PIN_SIZE(type, expected) PIN_SIZES(type, expected, expected, expected, expected)

// The fields 1.1 appended, and its size constants.
static void pin_1_1() {
#if ALGENTA_ABI_MINOR >= 1
  PIN_OFFSET(AlgentaEngineOpen_Args, host_block_tables, 88);
  PIN_OFFSET(AlgentaEngineOpen_Args, block_tables_accepted, 92);
  PIN_OFFSET(AlgentaEngineOpen_Args, kv_tokens_per_block, 96);
  PIN_OFFSET(AlgentaEngineOpen_Args, kv_blocks_total, 100);
  PIN_OFFSET(AlgentaSequenceChunk, block_table, 40);
  PIN_OFFSET(AlgentaSequenceChunk, block_count, 48);
  pin("ALGENTA_EngineOpen_Args_STRUCT_SIZE_1_1", ALGENTA_EngineOpen_Args_STRUCT_SIZE_1_1, 104);
  pin("ALGENTA_SequenceChunk_STRUCT_SIZE_1_1", ALGENTA_SequenceChunk_STRUCT_SIZE_1_1, 52);
#endif
}

// The fields 1.2 appended, its new struct, and its size constants.
static void pin_1_2() {
#if ALGENTA_ABI_MINOR >= 2
  PIN_OFFSET(AlgentaEngineOpen_Args, engine_samples, 104);
  PIN_OFFSET(AlgentaEngineOpen_Args, sampling_accepted, 108);
  PIN_OFFSET(AlgentaSequenceChunk, sampling, 56);
  pin("ALGENTA_EngineOpen_Args_STRUCT_SIZE_1_2", ALGENTA_EngineOpen_Args_STRUCT_SIZE_1_2, 112);
  pin("ALGENTA_SequenceChunk_STRUCT_SIZE_1_2", ALGENTA_SequenceChunk_STRUCT_SIZE_1_2, 64);
  if (ALGENTA_ABI_MINOR == 2) pin("sizeof(AlgentaSampling) at 1.2", sizeof(AlgentaSampling), 160);
  if (ALGENTA_ABI_MINOR == 3) pin("sizeof(AlgentaSampling) at 1.3", sizeof(AlgentaSampling), 160);
  PIN_OFFSET(AlgentaSampling, struct_size, 0);
  PIN_OFFSET(AlgentaSampling, temperature, 8);
  PIN_OFFSET(AlgentaSampling, top_p, 16);
  PIN_OFFSET(AlgentaSampling, top_k, 24);
  PIN_OFFSET(AlgentaSampling, min_p, 32);
  PIN_OFFSET(AlgentaSampling, presence_penalty, 40);
  PIN_OFFSET(AlgentaSampling, frequency_penalty, 48);
  PIN_OFFSET(AlgentaSampling, repetition_penalty, 56);
  PIN_OFFSET(AlgentaSampling, seed, 64);
  PIN_OFFSET(AlgentaSampling, prompt_tokens, 72);
  PIN_OFFSET(AlgentaSampling, prompt_token_count, 80);
  PIN_OFFSET(AlgentaSampling, output_tokens, 88);
  PIN_OFFSET(AlgentaSampling, output_token_count, 96);
  PIN_OFFSET(AlgentaSampling, banned_tokens, 104);
  PIN_OFFSET(AlgentaSampling, banned_token_count, 112);
  PIN_OFFSET(AlgentaSampling, want_logprob, 120);
  PIN_OFFSET(AlgentaSampling, top_logprobs, 124);
  PIN_OFFSET(AlgentaSampling, logprob, 128);
  PIN_OFFSET(AlgentaSampling, top_tokens, 136);
  PIN_OFFSET(AlgentaSampling, top_values, 144);
  PIN_OFFSET(AlgentaSampling, top_count, 152);
  pin("ALGENTA_Sampling_STRUCT_SIZE_1_2", ALGENTA_Sampling_STRUCT_SIZE_1_2, 160);
  pin("ALGENTA_MAX_TOP_LOGPROBS", ALGENTA_MAX_TOP_LOGPROBS, 20);
#endif
}

// The field 1.3 appended, and its size constant.
static void pin_1_3() {
#if ALGENTA_ABI_MINOR >= 3
  PIN_OFFSET(AlgentaEngineStep_Args, device_to_host_bytes, 72);
  pin("ALGENTA_EngineStep_Args_STRUCT_SIZE_1_3", ALGENTA_EngineStep_Args_STRUCT_SIZE_1_3, 80);
  pin("ALGENTA_BYTES_NOT_REPORTED is UINT64_MAX", ALGENTA_BYTES_NOT_REPORTED == UINT64_MAX, 1);
#endif
}

int main() {
  PIN_SIZE(AlgentaExtension, 24);
  PIN_OFFSET(AlgentaExtension, struct_size, 0);
  PIN_OFFSET(AlgentaExtension, type, 8);
  PIN_OFFSET(AlgentaExtension, next, 16);
  PIN_SIZE(AlgentaErrorDestroy_Args, 24);
  PIN_OFFSET(AlgentaErrorDestroy_Args, struct_size, 0);
  PIN_OFFSET(AlgentaErrorDestroy_Args, extension, 8);
  PIN_OFFSET(AlgentaErrorDestroy_Args, error, 16);
  PIN_SIZE(AlgentaErrorCode_Args, 32);
  PIN_OFFSET(AlgentaErrorCode_Args, struct_size, 0);
  PIN_OFFSET(AlgentaErrorCode_Args, extension, 8);
  PIN_OFFSET(AlgentaErrorCode_Args, error, 16);
  PIN_OFFSET(AlgentaErrorCode_Args, code, 24);
  PIN_SIZE(AlgentaErrorMessage_Args, 40);
  PIN_OFFSET(AlgentaErrorMessage_Args, struct_size, 0);
  PIN_OFFSET(AlgentaErrorMessage_Args, extension, 8);
  PIN_OFFSET(AlgentaErrorMessage_Args, error, 16);
  PIN_OFFSET(AlgentaErrorMessage_Args, message, 24);
  PIN_OFFSET(AlgentaErrorMessage_Args, message_size, 32);
  PIN_SIZE(AlgentaFactRange, 56);
  PIN_OFFSET(AlgentaFactRange, struct_size, 0);
  PIN_OFFSET(AlgentaFactRange, family, 8);
  PIN_OFFSET(AlgentaFactRange, fact, 16);
  PIN_OFFSET(AlgentaFactRange, kind, 24);
  PIN_OFFSET(AlgentaFactRange, min_value, 32);
  PIN_OFFSET(AlgentaFactRange, max_value, 40);
  PIN_OFFSET(AlgentaFactRange, allowed, 48);
  PIN_SIZE(AlgentaKernelInfo, 40);
  PIN_OFFSET(AlgentaKernelInfo, struct_size, 0);
  PIN_OFFSET(AlgentaKernelInfo, name, 8);
  PIN_OFFSET(AlgentaKernelInfo, role, 16);
  PIN_OFFSET(AlgentaKernelInfo, module, 24);
  PIN_OFFSET(AlgentaKernelInfo, families, 32);
  PIN_SIZE(AlgentaPrecisionPolicy, 32);
  PIN_OFFSET(AlgentaPrecisionPolicy, struct_size, 0);
  PIN_OFFSET(AlgentaPrecisionPolicy, precision, 8);
  PIN_OFFSET(AlgentaPrecisionPolicy, name, 16);
  PIN_OFFSET(AlgentaPrecisionPolicy, weight_dtypes, 24);
  PIN_SIZE(AlgentaDescriptor, 152);
  PIN_OFFSET(AlgentaDescriptor, struct_size, 0);
  PIN_OFFSET(AlgentaDescriptor, extension, 8);
  PIN_OFFSET(AlgentaDescriptor, name, 16);
  PIN_OFFSET(AlgentaDescriptor, role, 24);
  PIN_OFFSET(AlgentaDescriptor, target, 32);
  PIN_OFFSET(AlgentaDescriptor, version, 40);
  PIN_OFFSET(AlgentaDescriptor, families, 48);
  PIN_OFFSET(AlgentaDescriptor, family_count, 56);
  PIN_OFFSET(AlgentaDescriptor, fact_ranges, 64);
  PIN_OFFSET(AlgentaDescriptor, fact_range_count, 72);
  PIN_OFFSET(AlgentaDescriptor, fact_range_stride, 80);
  PIN_OFFSET(AlgentaDescriptor, kernels, 88);
  PIN_OFFSET(AlgentaDescriptor, kernel_count, 96);
  PIN_OFFSET(AlgentaDescriptor, kernel_stride, 104);
  PIN_OFFSET(AlgentaDescriptor, precisions, 112);
  PIN_OFFSET(AlgentaDescriptor, precision_count, 120);
  PIN_OFFSET(AlgentaDescriptor, precision_stride, 128);
  PIN_OFFSET(AlgentaDescriptor, host_libraries, 136);
  PIN_OFFSET(AlgentaDescriptor, host_library_count, 144);
  PIN_SIZES(AlgentaEngineOpen_Args, 88, 104, 112, 112);
  PIN_OFFSET(AlgentaEngineOpen_Args, struct_size, 0);
  PIN_OFFSET(AlgentaEngineOpen_Args, extension, 8);
  PIN_OFFSET(AlgentaEngineOpen_Args, checkpoint_dir, 16);
  PIN_OFFSET(AlgentaEngineOpen_Args, device_ordinal, 24);
  PIN_OFFSET(AlgentaEngineOpen_Args, precision, 28);
  PIN_OFFSET(AlgentaEngineOpen_Args, round_weights_to, 32);
  PIN_OFFSET(AlgentaEngineOpen_Args, requested_max_context, 36);
  PIN_OFFSET(AlgentaEngineOpen_Args, max_sequences, 40);
  PIN_OFFSET(AlgentaEngineOpen_Args, kv_cache_bytes, 48);
  PIN_OFFSET(AlgentaEngineOpen_Args, engine, 56);
  PIN_OFFSET(AlgentaEngineOpen_Args, served_max_context, 64);
  PIN_OFFSET(AlgentaEngineOpen_Args, vocab_size, 68);
  PIN_OFFSET(AlgentaEngineOpen_Args, rounded_weight_values, 72);
  PIN_OFFSET(AlgentaEngineOpen_Args, max_weight_rounding, 80);
  PIN_SIZES(AlgentaSequenceChunk, 40, 56, 64, 64);
  PIN_OFFSET(AlgentaSequenceChunk, struct_size, 0);
  PIN_OFFSET(AlgentaSequenceChunk, sequence_id, 8);
  PIN_OFFSET(AlgentaSequenceChunk, tokens, 16);
  PIN_OFFSET(AlgentaSequenceChunk, token_count, 24);
  PIN_OFFSET(AlgentaSequenceChunk, start_position, 28);
  PIN_OFFSET(AlgentaSequenceChunk, want_logits, 32);
  PIN_SIZES(AlgentaEngineStep_Args, 72, 72, 72, 80);
  PIN_OFFSET(AlgentaEngineStep_Args, struct_size, 0);
  PIN_OFFSET(AlgentaEngineStep_Args, extension, 8);
  PIN_OFFSET(AlgentaEngineStep_Args, engine, 16);
  PIN_OFFSET(AlgentaEngineStep_Args, chunks, 24);
  PIN_OFFSET(AlgentaEngineStep_Args, chunk_count, 32);
  PIN_OFFSET(AlgentaEngineStep_Args, chunk_stride, 40);
  PIN_OFFSET(AlgentaEngineStep_Args, next_tokens, 48);
  PIN_OFFSET(AlgentaEngineStep_Args, logits, 56);
  PIN_OFFSET(AlgentaEngineStep_Args, logits_capacity, 64);
  PIN_SIZE(AlgentaSequencesFree_Args, 40);
  PIN_OFFSET(AlgentaSequencesFree_Args, struct_size, 0);
  PIN_OFFSET(AlgentaSequencesFree_Args, extension, 8);
  PIN_OFFSET(AlgentaSequencesFree_Args, engine, 16);
  PIN_OFFSET(AlgentaSequencesFree_Args, sequence_ids, 24);
  PIN_OFFSET(AlgentaSequencesFree_Args, sequence_count, 32);
  PIN_SIZE(AlgentaMemoryReport_Args, 80);
  PIN_OFFSET(AlgentaMemoryReport_Args, struct_size, 0);
  PIN_OFFSET(AlgentaMemoryReport_Args, extension, 8);
  PIN_OFFSET(AlgentaMemoryReport_Args, engine, 16);
  PIN_OFFSET(AlgentaMemoryReport_Args, weight_bytes, 24);
  PIN_OFFSET(AlgentaMemoryReport_Args, kv_cache_bytes, 32);
  PIN_OFFSET(AlgentaMemoryReport_Args, workspace_bytes, 40);
  PIN_OFFSET(AlgentaMemoryReport_Args, device_free_bytes, 48);
  PIN_OFFSET(AlgentaMemoryReport_Args, device_total_bytes, 56);
  PIN_OFFSET(AlgentaMemoryReport_Args, kv_tokens_per_block, 64);
  PIN_OFFSET(AlgentaMemoryReport_Args, kv_blocks_total, 68);
  PIN_OFFSET(AlgentaMemoryReport_Args, kv_blocks_free, 72);
  PIN_SIZE(AlgentaEngineClose_Args, 24);
  PIN_OFFSET(AlgentaEngineClose_Args, struct_size, 0);
  PIN_OFFSET(AlgentaEngineClose_Args, extension, 8);
  PIN_OFFSET(AlgentaEngineClose_Args, engine, 16);
  PIN_SIZE(AlgentaPluginV1, 96);
  PIN_OFFSET(AlgentaPluginV1, struct_size, 0);
  PIN_OFFSET(AlgentaPluginV1, extension, 8);
  PIN_OFFSET(AlgentaPluginV1, abi_major, 16);
  PIN_OFFSET(AlgentaPluginV1, abi_minor, 20);
  PIN_OFFSET(AlgentaPluginV1, descriptor, 24);
  PIN_OFFSET(AlgentaPluginV1, error_destroy, 32);
  PIN_OFFSET(AlgentaPluginV1, error_code, 40);
  PIN_OFFSET(AlgentaPluginV1, error_message, 48);
  PIN_OFFSET(AlgentaPluginV1, engine_open, 56);
  PIN_OFFSET(AlgentaPluginV1, engine_step, 64);
  PIN_OFFSET(AlgentaPluginV1, sequences_free, 72);
  PIN_OFFSET(AlgentaPluginV1, memory_report, 80);
  PIN_OFFSET(AlgentaPluginV1, engine_close, 88);
  pin("ALGENTA_Extension_STRUCT_SIZE_1_0", ALGENTA_Extension_STRUCT_SIZE_1_0, 24);
  pin("ALGENTA_ErrorDestroy_Args_STRUCT_SIZE_1_0", ALGENTA_ErrorDestroy_Args_STRUCT_SIZE_1_0, 24);
  pin("ALGENTA_ErrorCode_Args_STRUCT_SIZE_1_0", ALGENTA_ErrorCode_Args_STRUCT_SIZE_1_0, 28);
  pin("ALGENTA_ErrorMessage_Args_STRUCT_SIZE_1_0", ALGENTA_ErrorMessage_Args_STRUCT_SIZE_1_0, 40);
  pin("ALGENTA_FactRange_STRUCT_SIZE_1_0", ALGENTA_FactRange_STRUCT_SIZE_1_0, 56);
  pin("ALGENTA_KernelInfo_STRUCT_SIZE_1_0", ALGENTA_KernelInfo_STRUCT_SIZE_1_0, 40);
  pin("ALGENTA_PrecisionPolicy_STRUCT_SIZE_1_0", ALGENTA_PrecisionPolicy_STRUCT_SIZE_1_0, 28);
  pin("ALGENTA_Descriptor_STRUCT_SIZE_1_0", ALGENTA_Descriptor_STRUCT_SIZE_1_0, 152);
  pin("ALGENTA_EngineOpen_Args_STRUCT_SIZE_1_0", ALGENTA_EngineOpen_Args_STRUCT_SIZE_1_0, 88);
  pin("ALGENTA_SequenceChunk_STRUCT_SIZE_1_0", ALGENTA_SequenceChunk_STRUCT_SIZE_1_0, 36);
  pin("ALGENTA_EngineStep_Args_STRUCT_SIZE_1_0", ALGENTA_EngineStep_Args_STRUCT_SIZE_1_0, 72);
  pin("ALGENTA_SequencesFree_Args_STRUCT_SIZE_1_0", ALGENTA_SequencesFree_Args_STRUCT_SIZE_1_0, 40);
  pin("ALGENTA_MemoryReport_Args_STRUCT_SIZE_1_0", ALGENTA_MemoryReport_Args_STRUCT_SIZE_1_0, 76);
  pin("ALGENTA_EngineClose_Args_STRUCT_SIZE_1_0", ALGENTA_EngineClose_Args_STRUCT_SIZE_1_0, 24);
  pin("ALGENTA_PluginV1_STRUCT_SIZE_1_0", ALGENTA_PluginV1_STRUCT_SIZE_1_0, 96);
  pin_1_1();
  pin_1_2();
  pin_1_3();
  std::printf("%d passed, %d failed\n", pins - failures, failures);
  return failures == 0 ? 0 : 1;
}