// The fact ranges the CUDA engine declares, as one table. The host asks the
// plugin for these through the ABI; nobody keeps a second copy.
#pragma once

#include "algenta/plugin_abi.h"

namespace algenta::cuda {

inline constexpr const char* kFamilies[] = {"llama", "qwen2", "qwen3"};

#define ALGENTA_RANGE(family, fact, lo, hi) \
  {sizeof(AlgentaFactRange), family, fact, ALGENTA_FACT_INT_RANGE, lo, hi, nullptr}
#define ALGENTA_ONE_OF(family, fact, allowed) \
  {sizeof(AlgentaFactRange), family, fact, ALGENTA_FACT_ONE_OF, 0, 0, allowed}

inline constexpr AlgentaFactRange kFactRanges[] = {
    ALGENTA_RANGE("*", "hidden_size", 64, 8192),
    ALGENTA_RANGE("*", "intermediate_size", 64, 32768),
    ALGENTA_RANGE("*", "head_dim", 64, 256),
    ALGENTA_RANGE("*", "num_attention_heads", 1, 128),
    ALGENTA_RANGE("*", "num_key_value_heads", 1, 128),
    ALGENTA_RANGE("*", "num_hidden_layers", 1, 128),
    ALGENTA_RANGE("*", "vocab_size", 1, 262144),
    ALGENTA_ONE_OF("*", "rope_scaling", "none,llama3,linear"),
    ALGENTA_ONE_OF("*", "hidden_act", "silu"),
};

#undef ALGENTA_RANGE
#undef ALGENTA_ONE_OF

}  // namespace algenta::cuda
