// Every decode GEMM shape (y = x w^T, w [N, K]) of the three benchmarked
// configs, for the GEMM checks and timings on the card.
#pragma once

struct GemmShape {
  const char* config;
  const char* weight;
  int N;
  int K;
};

inline constexpr GemmShape kDecodeGemmShapes[] = {
    {"Qwen3-0.6B", "qkv", (16 + 2 * 8) * 128, 1024},
    {"Qwen3-0.6B", "o_proj", 1024, 16 * 128},
    {"Qwen3-0.6B", "gate_up", 2 * 3072, 1024},
    {"Qwen3-0.6B", "down_proj", 1024, 3072},
    {"Qwen3-0.6B", "lm_head", 151936, 1024},
    {"Llama-3.2-1B", "qkv", (32 + 2 * 8) * 64, 2048},
    {"Llama-3.2-1B", "o_proj", 2048, 32 * 64},
    {"Llama-3.2-1B", "gate_up", 2 * 8192, 2048},
    {"Llama-3.2-1B", "down_proj", 2048, 8192},
    {"Llama-3.2-1B", "lm_head", 128256, 2048},
    {"Qwen2.5-7B", "qkv", (28 + 2 * 4) * 128, 3584},
    {"Qwen2.5-7B", "o_proj", 3584, 28 * 128},
    {"Qwen2.5-7B", "gate_up", 2 * 18944, 3584},
    {"Qwen2.5-7B", "down_proj", 3584, 18944},
    {"Qwen2.5-7B", "lm_head", 152064, 3584},
};
