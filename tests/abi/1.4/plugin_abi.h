/*
 * TEST HEADER, not an ABI: ABI 1.3 with fields appended as a minor version
 * 1.4 would append them (an open field in and out, a chunk field). Tests
 * build a host and a plugin against it to check the version rules: a newer
 * host loads and drives plugins built from the frozen 1.0, 1.1, 1.2 and 1.3
 * copies, and a 1.3 host refuses a plugin that needs 1.4.
 */
/*
 * algenta plugin ABI 1.3: the only interface between algenta-host and an engine.
 *
 * Plain C, no exceptions, no C++ types. Modelled on PJRT's C API
 * (pjrt_c_api.h): every call takes one `*_Args` struct that starts with
 * `struct_size` and an `extension` pointer; engine calls return NULL on
 * success or an opaque AlgentaError* the caller must destroy. Per-call
 * contracts are written beside each call, as tritonbackend.h does.
 *
 * Versions (see ABI_CHANGELOG.md):
 *  - The host calls algenta_plugin_entry(ALGENTA_ABI_MAJOR); the plugin
 *    returns its table only when the majors are equal (else NULL). The host
 *    then requires host minor >= table->abi_minor (the minor the plugin needs).
 *  - Fields are only ever appended. Each struct has one size constant per
 *    version that defined it, e.g. ALGENTA_EngineOpen_Args_STRUCT_SIZE_1_0,
 *    and ALGENTA_<Name>_STRUCT_SIZE for the newest: the offset of its last
 *    field plus that field's size, without trailing padding.
 *  - The writer of a struct sets struct_size = ALGENTA_<Name>_STRUCT_SIZE,
 *    never sizeof: a later minor may append a field into today's padding,
 *    and an older writer's padding must not read as that field.
 *  - A reader refuses a struct smaller than the size of the version it needs
 *    (never its own sizeof) and touches a later field only when struct_size
 *    covers it (ALGENTA_STRUCT_HAS). A callee fills an output field only when
 *    the caller's struct_size covers it.
 *  - Arrays of structs come with a stride (bytes from one element to the
 *    next) set by their writer, so a reader built against an older minor
 *    walks elements that grew: element i is at (char*)base + i * stride.
 *
 * Ownership, everywhere unless a call says otherwise:
 *  - What a plugin hands out through its table and descriptor is static and
 *    lives as long as the plugin is loaded.
 *  - Args structs and every buffer they point to are owned by the caller, on
 *    success and on failure; a plugin copies what it keeps past the call.
 *  - Output buffers are allocated by the caller; the plugin fills them.
 *  - An AlgentaError is allocated by the plugin, read through error_code and
 *    error_message, and freed exactly once by the host through error_destroy.
 *
 * NULL: every `extension` may be NULL (no extension). No Args pointer may be
 * NULL: an engine call given one returns INVALID_ARGUMENT, an error call does
 * nothing. Other pointers: as each field says.
 *
 * Threads: the calls on one engine never overlap (the host serializes them,
 * memory_report included); calls on two different engines of one plugin may
 * run concurrently, from different threads, and so may the error calls on
 * different errors. The table and descriptor may be read from any thread.
 */
#ifndef ALGENTA_PLUGIN_ABI_H
#define ALGENTA_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ALGENTA_ABI_MAJOR 1
#define ALGENTA_ABI_MINOR 4

/* The single exported symbol of a plugin. */
#define ALGENTA_PLUGIN_ENTRY_SYMBOL "algenta_plugin_entry"

/* Size of `type` up to and including `last_field`: a version's struct size. */
#define ALGENTA_STRUCT_SIZE(type, last_field) \
  (offsetof(type, last_field) + sizeof(((type*)0)->last_field))

/* True when a struct of the reported size contains `field`. */
#define ALGENTA_STRUCT_HAS(ptr, type, field) \
  ((ptr)->struct_size >= ALGENTA_STRUCT_SIZE(type, field))

/* Element `index` of an array of `type` whose elements are `stride` bytes apart. */
#define ALGENTA_ELEMENT_AT(type, base, stride, index) \
  ((const type*)((const char*)(base) + (size_t)(index) * (size_t)(stride)))

#if defined(__GNUC__)
#define ALGENTA_EXPORT __attribute__((visibility("default")))
#else
#define ALGENTA_EXPORT
#endif

/* ---- extensions -------------------------------------------------------- */

/* Optional chain on every Args struct and on the table and descriptor: what
 * one target adds without touching the core structs. Types are registered in
 * ABI_CHANGELOG.md; a reader skips types it does not know. */
typedef struct AlgentaExtension {
  size_t struct_size;
  uint32_t type;
  const struct AlgentaExtension* next;
} AlgentaExtension;
#define ALGENTA_Extension_STRUCT_SIZE_1_0 ALGENTA_STRUCT_SIZE(AlgentaExtension, next)
#define ALGENTA_Extension_STRUCT_SIZE ALGENTA_Extension_STRUCT_SIZE_1_0

/* ---- errors ------------------------------------------------------------ */

typedef enum AlgentaStatusCode {
  ALGENTA_STATUS_OK = 0,
  ALGENTA_STATUS_INVALID_ARGUMENT = 1, /* caller passed something malformed */
  ALGENTA_STATUS_UNSUPPORTED = 2,      /* outside the declared facts or policies */
  ALGENTA_STATUS_OUT_OF_MEMORY = 3,    /* host or device memory exhausted */
  ALGENTA_STATUS_UNIMPLEMENTED = 4,    /* this plugin does not provide the call */
  ALGENTA_STATUS_DEVICE = 5,           /* driver or device failure */
  ALGENTA_STATUS_IO = 6,               /* reading a checkpoint failed */
  ALGENTA_STATUS_INTERNAL = 7          /* a bug: please report it */
} AlgentaStatusCode;

typedef struct AlgentaError AlgentaError; /* opaque, plugin-allocated */

/* error_destroy: frees `error`. NULL is allowed and does nothing. After the
 * call the error and its message pointer are invalid. */
typedef struct AlgentaErrorDestroy_Args {
  size_t struct_size;
  const AlgentaExtension* extension;
  AlgentaError* error;
} AlgentaErrorDestroy_Args;
#define ALGENTA_ErrorDestroy_Args_STRUCT_SIZE_1_0 \
  ALGENTA_STRUCT_SIZE(AlgentaErrorDestroy_Args, error)
#define ALGENTA_ErrorDestroy_Args_STRUCT_SIZE ALGENTA_ErrorDestroy_Args_STRUCT_SIZE_1_0

/* error_code: the status of a non-NULL error (never ALGENTA_STATUS_OK). */
typedef struct AlgentaErrorCode_Args {
  size_t struct_size;
  const AlgentaExtension* extension;
  const AlgentaError* error;
  AlgentaStatusCode code; /* out */
} AlgentaErrorCode_Args;
#define ALGENTA_ErrorCode_Args_STRUCT_SIZE_1_0 ALGENTA_STRUCT_SIZE(AlgentaErrorCode_Args, code)
#define ALGENTA_ErrorCode_Args_STRUCT_SIZE ALGENTA_ErrorCode_Args_STRUCT_SIZE_1_0

/* error_message: UTF-8 text, not necessarily NUL-terminated, owned by the
 * error and valid until error_destroy. */
typedef struct AlgentaErrorMessage_Args {
  size_t struct_size;
  const AlgentaExtension* extension;
  const AlgentaError* error;
  const char* message; /* out */
  size_t message_size; /* out, bytes */
} AlgentaErrorMessage_Args;
#define ALGENTA_ErrorMessage_Args_STRUCT_SIZE_1_0 \
  ALGENTA_STRUCT_SIZE(AlgentaErrorMessage_Args, message_size)
#define ALGENTA_ErrorMessage_Args_STRUCT_SIZE ALGENTA_ErrorMessage_Args_STRUCT_SIZE_1_0

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
#define ALGENTA_FactRange_STRUCT_SIZE_1_0 ALGENTA_STRUCT_SIZE(AlgentaFactRange, allowed)
#define ALGENTA_FactRange_STRUCT_SIZE ALGENTA_FactRange_STRUCT_SIZE_1_0

/* One entry of the kernel inventory. */
typedef struct AlgentaKernelInfo {
  size_t struct_size;
  const char* name;     /* e.g. "rmsnorm_residual_f32" */
  const char* role;     /* e.g. "gemm", "attention", "norm" */
  const char* module;   /* source module that defines it */
  const char* families; /* comma-separated families that use it, or "*" */
} AlgentaKernelInfo;
#define ALGENTA_KernelInfo_STRUCT_SIZE_1_0 ALGENTA_STRUCT_SIZE(AlgentaKernelInfo, families)
#define ALGENTA_KernelInfo_STRUCT_SIZE ALGENTA_KernelInfo_STRUCT_SIZE_1_0

/* Element types of weights, as a checkpoint stores them and an engine holds
 * them. Also used as bits: (1u << ALGENTA_DTYPE_BF16). */
typedef enum AlgentaDtype {
  ALGENTA_DTYPE_NONE = 0,
  ALGENTA_DTYPE_F32 = 1,
  ALGENTA_DTYPE_BF16 = 2,
  ALGENTA_DTYPE_F16 = 3
} AlgentaDtype;
#define ALGENTA_DTYPE_BIT(dtype) (1u << (uint32_t)(dtype))

/* How an engine computes. `exact`: fp32 activations, residual stream and KV
 * cache, weights held exactly as prepared. `bf16`: bf16 GEMM/attention
 * inputs and KV cache, fp32 accumulation and residual stream. Both are
 * batch-invariant and bit-reproducible. */
typedef enum AlgentaPrecision {
  ALGENTA_PRECISION_EXACT = 1,
  ALGENTA_PRECISION_BF16 = 2
} AlgentaPrecision;

/* One precision policy the plugin runs. */
typedef struct AlgentaPrecisionPolicy {
  size_t struct_size;
  AlgentaPrecision precision;
  const char* name; /* "exact", "bf16": what --precision accepts */
  /* ALGENTA_DTYPE_BIT set of the element types weights are held in under
   * this policy. A checkpoint stored in another type runs only when every
   * value converts exactly, or with the operator's consent to rounding
   * (AlgentaEngineOpen_Args.round_weights_to). */
  uint32_t weight_dtypes;
} AlgentaPrecisionPolicy;
#define ALGENTA_PrecisionPolicy_STRUCT_SIZE_1_0 \
  ALGENTA_STRUCT_SIZE(AlgentaPrecisionPolicy, weight_dtypes)
#define ALGENTA_PrecisionPolicy_STRUCT_SIZE ALGENTA_PrecisionPolicy_STRUCT_SIZE_1_0

/* Every pointer is non-NULL unless its count is 0; strings are
 * NUL-terminated UTF-8. Each array of structs has a stride >= its element's
 * STRUCT_SIZE_1_0. The first precision policy is the plugin's default. */
typedef struct AlgentaDescriptor {
  size_t struct_size;
  const AlgentaExtension* extension;
  const char* name;    /* manifest name, e.g. "cuda_sm90a" */
  AlgentaRole role;
  const char* target;  /* "sm_75", "sm_80", "sm_89", "sm_90a", "cpu" */
  const char* version; /* plugin build version, free text */
  const char* const* families;
  size_t family_count;
  const AlgentaFactRange* fact_ranges;
  size_t fact_range_count;
  size_t fact_range_stride;
  const AlgentaKernelInfo* kernels;
  size_t kernel_count;
  size_t kernel_stride;
  const AlgentaPrecisionPolicy* precisions;
  size_t precision_count; /* at least 1 */
  size_t precision_stride;
  const char* const* host_libraries; /* sonames loaded before this plugin */
  size_t host_library_count;
} AlgentaDescriptor;
#define ALGENTA_Descriptor_STRUCT_SIZE_1_0 \
  ALGENTA_STRUCT_SIZE(AlgentaDescriptor, host_library_count)
#define ALGENTA_Descriptor_STRUCT_SIZE ALGENTA_Descriptor_STRUCT_SIZE_1_0

/* ---- engine calls ------------------------------------------------------ */

typedef struct AlgentaEngine AlgentaEngine; /* opaque, plugin-owned */

/* engine_open: opens an engine over a prepared checkpoint.
 * In: checkpoint_dir (non-NULL), precision (one the descriptor lists),
 * round_weights_to, requested_max_context, max_sequences, kv_cache_bytes.
 * Weights: an engine never changes a weight's value silently. When the
 * checkpoint holds a value the policy's weight types cannot hold exactly,
 * open fails with UNSUPPORTED naming the stored type, the engine's type, how
 * many values would change and the ways forward - unless round_weights_to
 * names the type to round to (the operator's consent). An engine that holds
 * that type rounds to it (round to nearest, ties to even) and reports what
 * changed; an oracle rounds to it and then computes as always, so that it
 * runs the same weights as the engine it checks. A type the plugin cannot
 * round to is UNSUPPORTED.
 * Success: `engine` is a new engine owned by the caller until engine_close;
 * the other outputs are set. Failure: nothing was created, outputs are
 * unspecified, the plugin holds no device or host memory for it.
 *
 * Host block tables (1.1). With host_block_tables = 1 the host offers to own
 * the KV cache's blocks: it allocates them, passes every chunk's block table
 * (AlgentaSequenceChunk.block_table) and may list one block in several
 * sequences' tables (a shared prefix, never written again). An engine that
 * takes the offer sets block_tables_accepted = 1 and reports its paged
 * cache's geometry (kv_tokens_per_block, kv_blocks_total); it then keeps no
 * allocator of its own, and sequences_free only drops its per-sequence state.
 * An engine that declines sets block_tables_accepted = 0 (it keeps its own
 * cache and ignores every block table), and so does every engine when
 * host_block_tables is 0. The host sets block_tables_accepted to 0 before the
 * call: an engine built for 1.0 never writes it, which reads as declined.
 * Accepting is all or nothing for the engine's life. The outputs are written
 * only when struct_size covers them (a 1.0 caller gets none).
 *
 * Engine sampling (1.2). With engine_samples = 1 the host offers to send a
 * chunk's sampling parameters (AlgentaSequenceChunk.sampling) instead of
 * asking for its logits: the engine then draws the next token itself and
 * returns it with the logprobs asked for, so the logits need not leave the
 * device. An engine that takes the offer sets sampling_accepted = 1; one
 * that declines (or gets engine_samples = 0) sets 0 and ignores every
 * chunk's `sampling`. The host sets sampling_accepted to 0 before the call:
 * an engine built for 1.1 or earlier never writes it, which reads as
 * declined. */
typedef struct AlgentaEngineOpen_Args {
  size_t struct_size;
  const AlgentaExtension* extension;
  const char* checkpoint_dir; /* a prepared checkpoint */
  uint32_t device_ordinal;
  AlgentaPrecision precision;
  AlgentaDtype round_weights_to; /* ALGENTA_DTYPE_NONE: refuse inexact weights */
  uint32_t requested_max_context; /* tokens per sequence, 0 = model maximum */
  uint32_t max_sequences;         /* concurrently resident, 0 = engine default */
  uint64_t kv_cache_bytes;        /* 0 = size from free device memory */
  AlgentaEngine* engine;          /* out */
  uint32_t served_max_context;    /* out: the context the engine serves */
  uint32_t vocab_size;            /* out: logits per position */
  uint64_t rounded_weight_values; /* out: values changed by round_weights_to */
  double max_weight_rounding;     /* out: largest |new - old| / |old| of those */
  /* 1.1 */
  uint32_t host_block_tables;     /* in: 1 = the host owns KV blocks and passes a
                                     table with every chunk; 0 = the engine does
                                     (1.0 behaviour). Other values: INVALID_ARGUMENT */
  uint32_t block_tables_accepted; /* out: 1 = the engine takes the host's tables */
  uint32_t kv_tokens_per_block;   /* out, when accepted: positions per block; block
                                     i of a table holds positions [i B, (i + 1) B) */
  uint32_t kv_blocks_total;       /* out, when accepted: valid block ids are
                                     0 .. kv_blocks_total - 1 */
  /* 1.2 */
  uint32_t engine_samples;    /* in: 1 = the host sends sampling parameters
                                 with chunks; 0 = it samples from logits itself.
                                 Other values: INVALID_ARGUMENT */
  uint32_t sampling_accepted; /* out: 1 = the engine draws sampled tokens */
  /* 1.4 (test only) */
  uint32_t test_open_in;  /* in */
  uint32_t test_open_out; /* out */
} AlgentaEngineOpen_Args;
#define ALGENTA_EngineOpen_Args_STRUCT_SIZE_1_0 \
  ALGENTA_STRUCT_SIZE(AlgentaEngineOpen_Args, max_weight_rounding)
#define ALGENTA_EngineOpen_Args_STRUCT_SIZE_1_1 \
  ALGENTA_STRUCT_SIZE(AlgentaEngineOpen_Args, kv_blocks_total)
#define ALGENTA_EngineOpen_Args_STRUCT_SIZE_1_2 \
  ALGENTA_STRUCT_SIZE(AlgentaEngineOpen_Args, sampling_accepted)
#define ALGENTA_EngineOpen_Args_STRUCT_SIZE_1_4 \
  ALGENTA_STRUCT_SIZE(AlgentaEngineOpen_Args, test_open_out)
#define ALGENTA_EngineOpen_Args_STRUCT_SIZE ALGENTA_EngineOpen_Args_STRUCT_SIZE_1_4

/* Which logits a chunk asks for. */
typedef enum AlgentaLogitsRequest {
  ALGENTA_LOGITS_NONE = 0,
  ALGENTA_LOGITS_LAST = 1, /* vocab floats: the chunk's last position */
  ALGENTA_LOGITS_ALL = 2   /* token_count * vocab floats, in position order */
} AlgentaLogitsRequest;

/* How an engine that accepted engine sampling (1.2) draws a chunk's next
 * token: core/sampling/SAMPLING.md's pipeline, the host's own sampler, at
 * position start_position + token_count (the token being drawn):
 *   z = the chunk's last logits with banned_tokens set to -inf, then the
 *       repetition, frequency and presence penalties over prompt_tokens and
 *       output_tokens;
 *   temperature 0: token = argmax z (ties -> lowest id);
 *   else z / temperature, then top-k, top-p and min-p, and
 *       token = argmax over the survivors of z + gumbel(seed, position, id)
 *       (Philox 4x32-10; ties -> lowest id).
 * Logprobs are log_softmax of the RAW logits (before bans, penalties and
 * temperature): *logprob for the drawn token when want_logprob, and the
 * top_logprobs most likely tokens (logprob desc, id asc; finite logits only,
 * so *top_count may be smaller) in top_tokens / top_values.
 * Ranges as the host's sampler checks them; an engine refuses the whole step
 * (INVALID_ARGUMENT, naming the sequence, the field, its range and value)
 * for a value outside them, a history or banned id outside the vocabulary, a
 * NULL array with a non-zero count, and a NULL output it must write. Logits
 * that are NaN or +inf, or with no allowed token, fail the step (INTERNAL).
 * The struct and every array are the caller's, read (and the outputs
 * written) during engine_step only. */
#define ALGENTA_MAX_TOP_LOGPROBS 20
typedef struct AlgentaSampling {
  size_t struct_size;
  double temperature;        /* [0, 100]; 0 = greedy */
  double top_p;              /* (0, 1]; 1 = off */
  int64_t top_k;             /* -1 or 0 = off, else >= 1 */
  double min_p;              /* [0, 1]; 0 = off */
  double presence_penalty;   /* [-2, 2] */
  double frequency_penalty;  /* [-2, 2] */
  double repetition_penalty; /* (0, 2]; 1 = off */
  uint64_t seed;
  const int32_t* prompt_tokens; /* the sequence's prompt */
  size_t prompt_token_count;
  const int32_t* output_tokens; /* the tokens drawn so far */
  size_t output_token_count;
  const int32_t* banned_tokens; /* never drawn (e.g. end ids before min_tokens) */
  size_t banned_token_count;
  uint32_t want_logprob; /* 1 = write *logprob; 0 = do not */
  uint32_t top_logprobs; /* [0, ALGENTA_MAX_TOP_LOGPROBS]; needs want_logprob */
  double* logprob;       /* out, when want_logprob */
  int32_t* top_tokens;   /* out: top_logprobs entries, when top_logprobs > 0 */
  double* top_values;    /* out: their logprobs */
  uint32_t* top_count;   /* out, when top_logprobs > 0: entries written */
} AlgentaSampling;
#define ALGENTA_Sampling_STRUCT_SIZE_1_2 ALGENTA_STRUCT_SIZE(AlgentaSampling, top_count)
#define ALGENTA_Sampling_STRUCT_SIZE ALGENTA_Sampling_STRUCT_SIZE_1_2

/* One sequence's part of a ragged batch step: a prefill chunk or one decode
 * token. Positions start_position .. start_position + token_count - 1.
 * A sequence starts with a chunk at position 0; each later chunk starts where
 * the sequence's cached tokens end.
 *
 * Block table (1.1), read only by an engine that accepted host block tables
 * at open (AlgentaEngineOpen_Args.block_tables_accepted); other engines
 * ignore both fields. Then:
 *  - block_table lists the sequence's blocks in position order, block i
 *    holding positions [i B, (i + 1) B) with B = kv_tokens_per_block; it
 *    covers at least positions 0 .. start_position + token_count - 1
 *    (block_count >= ceil((start_position + token_count) / B)); entries past
 *    that are ignored. It is owned by the caller and read only during
 *    engine_step; the engine copies what it keeps.
 *  - The engine writes the chunk's keys and values into the listed blocks at
 *    positions start_position .. start_position + token_count - 1 and reads
 *    positions before start_position from them. Several tables may list one
 *    block: the host guarantees that a block listed by two sequences is
 *    written by neither (a shared prefix, computed once under the same
 *    precision, tokens and positions).
 *  - A sequence the engine does not hold may start past position 0: its
 *    first chunk then reads positions 0 .. start_position - 1 from blocks an
 *    earlier chunk (of any sequence) computed - the host's prefix cache.
 *  - The engine refuses the whole step (INVALID_ARGUMENT, naming the
 *    sequence and numbers; nothing changes) for: a chunk whose struct_size
 *    does not cover the 1.1 fields, a NULL block_table, a block_count short
 *    of the chunk's last position, a block id at or past kv_blocks_total, a
 *    block listed twice in one table, and a block that one chunk writes and
 *    another chunk of the step lists. It may refuse the same way a read of a
 *    block position no chunk wrote.
 *
 * Sampling (1.2), read only by an engine that accepted engine sampling at
 * open (others ignore it): NULL = the greedy token, as in 1.0; else
 * next_tokens[i] is drawn as AlgentaSampling says. A chunk may carry it and
 * ask for logits too. */
typedef struct AlgentaSequenceChunk {
  size_t struct_size;
  uint64_t sequence_id;
  const int32_t* tokens; /* token_count ids, non-NULL */
  uint32_t token_count;  /* >= 1 */
  uint32_t start_position;
  AlgentaLogitsRequest want_logits;
  /* 1.1 */
  const uint32_t* block_table; /* block_count block ids; see above */
  uint32_t block_count;
  /* 1.2 */
  const AlgentaSampling* sampling; /* NULL = greedy; see above */
  /* 1.4 (test only) */
  uint64_t test_chunk_value;
} AlgentaSequenceChunk;
#define ALGENTA_SequenceChunk_STRUCT_SIZE_1_0 \
  ALGENTA_STRUCT_SIZE(AlgentaSequenceChunk, want_logits)
#define ALGENTA_SequenceChunk_STRUCT_SIZE_1_1 \
  ALGENTA_STRUCT_SIZE(AlgentaSequenceChunk, block_count)
#define ALGENTA_SequenceChunk_STRUCT_SIZE_1_2 ALGENTA_STRUCT_SIZE(AlgentaSequenceChunk, sampling)
#define ALGENTA_SequenceChunk_STRUCT_SIZE_1_4 \
  ALGENTA_STRUCT_SIZE(AlgentaSequenceChunk, test_chunk_value)
#define ALGENTA_SequenceChunk_STRUCT_SIZE ALGENTA_SequenceChunk_STRUCT_SIZE_1_4

/* engine_step: runs one ragged batch; at most one chunk per sequence.
 * Success: next_tokens[i] is the greedy token after chunk i's last position
 * (ties -> lowest id), or the token its `sampling` draws (1.2); `logits` holds the requested logits of every chunk,
 * concatenated in chunk order. Failure: no sequence changed - the KV cache
 * of every sequence is as it was before the call (a refused step, e.g. a full
 * cache or a position past the context, can be retried smaller); outputs are
 * unspecified. A DEVICE or INTERNAL failure may leave the engine unusable:
 * the host then only closes it.
 *
 * Transfers (1.3): device_to_host_bytes is what the step copied from device
 * memory to host memory (logits, tokens, logprobs: every byte of every
 * copy), so a host can tell whether logits stay on the device; 0 for an
 * engine without a device. The host sets ALGENTA_BYTES_NOT_REPORTED before
 * the call; an engine before 1.3 leaves it so. */
#define ALGENTA_BYTES_NOT_REPORTED UINT64_MAX
typedef struct AlgentaEngineStep_Args {
  size_t struct_size;
  const AlgentaExtension* extension;
  AlgentaEngine* engine;
  const AlgentaSequenceChunk* chunks; /* chunk_count elements */
  size_t chunk_count;                 /* >= 1 */
  size_t chunk_stride;                /* >= ALGENTA_SequenceChunk_STRUCT_SIZE_1_0 */
  int32_t* next_tokens;   /* out: chunk_count ids, non-NULL */
  float* logits;          /* out: NULL when no chunk asks for logits */
  size_t logits_capacity; /* floats available at `logits` */
  /* 1.3 */
  uint64_t device_to_host_bytes; /* out; see above */
} AlgentaEngineStep_Args;
#define ALGENTA_EngineStep_Args_STRUCT_SIZE_1_0 \
  ALGENTA_STRUCT_SIZE(AlgentaEngineStep_Args, logits_capacity)
#define ALGENTA_EngineStep_Args_STRUCT_SIZE_1_3 \
  ALGENTA_STRUCT_SIZE(AlgentaEngineStep_Args, device_to_host_bytes)
#define ALGENTA_EngineStep_Args_STRUCT_SIZE ALGENTA_EngineStep_Args_STRUCT_SIZE_1_3

/* sequences_free: forgets the listed sequences and frees their KV blocks.
 * Unknown ids are ignored. Failure (only for malformed Args): nothing freed.
 * With host block tables (1.1) the host owns the blocks: the engine drops
 * only its per-sequence state and leaves the blocks' contents alone (another
 * sequence may still list them). */
typedef struct AlgentaSequencesFree_Args {
  size_t struct_size;
  const AlgentaExtension* extension;
  AlgentaEngine* engine;
  const uint64_t* sequence_ids; /* may be NULL when sequence_count is 0 */
  size_t sequence_count;
} AlgentaSequencesFree_Args;
#define ALGENTA_SequencesFree_Args_STRUCT_SIZE_1_0 \
  ALGENTA_STRUCT_SIZE(AlgentaSequencesFree_Args, sequence_count)
#define ALGENTA_SequencesFree_Args_STRUCT_SIZE ALGENTA_SequencesFree_Args_STRUCT_SIZE_1_0

/* memory_report: what the engine holds, and its KV cache geometry.
 * Failure (only for malformed Args): outputs unspecified, engine unchanged. */
typedef struct AlgentaMemoryReport_Args {
  size_t struct_size;
  const AlgentaExtension* extension;
  AlgentaEngine* engine;
  uint64_t weight_bytes;       /* out */
  uint64_t kv_cache_bytes;     /* out */
  uint64_t workspace_bytes;    /* out */
  uint64_t device_free_bytes;  /* out, 0 for CPU plugins */
  uint64_t device_total_bytes; /* out, 0 for CPU plugins */
  uint32_t kv_tokens_per_block; /* out: tokens in one KV block; 0 when the
                                   cache is not paged (the counts are 0 too) */
  uint32_t kv_blocks_total;     /* out: blocks in the cache */
  uint32_t kv_blocks_free;      /* out: blocks held by no sequence (with host
                                   block tables: listed by no live sequence's
                                   latest table; the host may hold them still) */
} AlgentaMemoryReport_Args;
#define ALGENTA_MemoryReport_Args_STRUCT_SIZE_1_0 \
  ALGENTA_STRUCT_SIZE(AlgentaMemoryReport_Args, kv_blocks_free)
#define ALGENTA_MemoryReport_Args_STRUCT_SIZE ALGENTA_MemoryReport_Args_STRUCT_SIZE_1_0

/* engine_close: releases everything the engine holds. The engine is gone
 * after the call whatever it returns; an error reports what failed while
 * releasing (e.g. a device fault found on synchronizing). */
typedef struct AlgentaEngineClose_Args {
  size_t struct_size;
  const AlgentaExtension* extension;
  AlgentaEngine* engine; /* may be NULL: nothing to do */
} AlgentaEngineClose_Args;
#define ALGENTA_EngineClose_Args_STRUCT_SIZE_1_0 \
  ALGENTA_STRUCT_SIZE(AlgentaEngineClose_Args, engine)
#define ALGENTA_EngineClose_Args_STRUCT_SIZE ALGENTA_EngineClose_Args_STRUCT_SIZE_1_0

/* The function table. Every call pointer is non-NULL; a plugin without an
 * engine returns UNIMPLEMENTED from the engine calls. */
typedef struct AlgentaPluginV1 {
  size_t struct_size;
  const AlgentaExtension* extension;
  uint32_t abi_major;
  uint32_t abi_minor; /* the host minor this plugin needs at least */
  const AlgentaDescriptor* descriptor;

  void (*error_destroy)(AlgentaErrorDestroy_Args* args);
  void (*error_code)(AlgentaErrorCode_Args* args);
  void (*error_message)(AlgentaErrorMessage_Args* args);

  AlgentaError* (*engine_open)(AlgentaEngineOpen_Args* args);
  AlgentaError* (*engine_step)(AlgentaEngineStep_Args* args);
  AlgentaError* (*sequences_free)(AlgentaSequencesFree_Args* args);
  AlgentaError* (*memory_report)(AlgentaMemoryReport_Args* args);
  AlgentaError* (*engine_close)(AlgentaEngineClose_Args* args);
} AlgentaPluginV1;
#define ALGENTA_PluginV1_STRUCT_SIZE_1_0 ALGENTA_STRUCT_SIZE(AlgentaPluginV1, engine_close)
#define ALGENTA_PluginV1_STRUCT_SIZE ALGENTA_PluginV1_STRUCT_SIZE_1_0

/* The entry point: NULL when host_abi_major differs from the plugin's. Does
 * no device work (a plugin must be loadable for its descriptor anywhere). */
typedef const AlgentaPluginV1* (*AlgentaPluginEntryFn)(uint32_t host_abi_major);

#ifdef __cplusplus
}
#endif

#endif /* ALGENTA_PLUGIN_ABI_H */
