// The fact ranges the CUDA engine declares, as one table. The host asks the
// plugin for these through the ABI; nobody keeps a second copy. A family row
// replaces the "*" row of the same fact.
#pragma once

#include "algenta/plugin_abi.h"

namespace algenta::cuda {

inline constexpr const char* kFamilies[] = {"llama", "qwen2", "qwen3"};

#define ALGENTA_RANGE(family, fact, lo, hi) \
  {ALGENTA_FactRange_STRUCT_SIZE, family, fact, ALGENTA_FACT_INT_RANGE, lo, hi, nullptr}
#define ALGENTA_ONE_OF(family, fact, allowed) \
  {ALGENTA_FactRange_STRUCT_SIZE, family, fact, ALGENTA_FACT_ONE_OF, 0, 0, allowed}

// Sizes are the largest the engine takes: head_dim bounds the attention and
// RoPE kernels' per-lane registers and shared staging (kMaxHeadDim); hidden
// and intermediate bound the per-pass workspace the engine plans at open.
// The engine checks a checkpoint against this table before any GPU work.
inline constexpr AlgentaFactRange kFactRanges[] = {
    ALGENTA_RANGE("*", "hidden_size", 16, 8192),
    ALGENTA_RANGE("*", "intermediate_size", 16, 32768),
    ALGENTA_RANGE("*", "head_dim", 2, 256),
    ALGENTA_RANGE("*", "num_attention_heads", 1, 128),
    ALGENTA_RANGE("*", "num_key_value_heads", 1, 128),
    ALGENTA_RANGE("*", "num_hidden_layers", 1, 128),
    ALGENTA_RANGE("*", "vocab_size", 2, 262208),
    ALGENTA_RANGE("*", "max_position_embeddings", 1, 1048576),
    ALGENTA_RANGE("*", "mlp_bias", 0, 0),
    ALGENTA_RANGE("*", "sliding_window", 0, 0),
    ALGENTA_ONE_OF("*", "rope_scaling", "none,llama3,linear"),
    ALGENTA_ONE_OF("*", "hidden_act", "silu"),
    ALGENTA_ONE_OF("*", "mlp_kind", "dense"),
    ALGENTA_ONE_OF("*", "attention_kind", "grouped_query"),
};

#undef ALGENTA_RANGE
#undef ALGENTA_ONE_OF

}  // namespace algenta::cuda
