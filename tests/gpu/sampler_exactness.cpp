// The device sampler against the host sampler (core/sampling), on the card:
//   sampler_exactness
// Seeded logits rows at real vocabulary sizes (Qwen2.5/3, Llama-3, Gemma-3,
// and a small ragged one), each drawn under every sampling configuration
// below, many rows in one launch and each row alone. Every drawn token must
// be sample_token's on the same row (bit-exact decisions, no tolerance),
// alone and among the others; logprobs and top logprobs must be the host's
// within 1e-9 (they are reported, summed in another order). Rows the host
// refuses (NaN, +inf, no allowed token) must be refused naming the index.
// Prints one line per failure and `sampler: N cases, F failed`.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "device_sampler.hpp"
#include "plugin_support/plugin_error.hpp"
#include "random/splitmix64.hpp"
#include "sampling/sampler.hpp"

namespace {

using algenta::cuda::DeviceSampler;
using algenta::cuda::SampledRow;
namespace sampling = algenta::sampling;

int g_cases = 0;
int g_failed = 0;

void fail(const std::string& what) {
  ++g_failed;
  std::printf("FAIL %s\n", what.c_str());
}

void check_cuda(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  std::printf("FAIL %s: %s\n", what, cudaGetErrorString(status));
  std::exit(1);
}

struct Config {
  std::string name;
  sampling::SamplingParams params;
  std::vector<std::int32_t> banned;
};

std::vector<Config> configs(int vocab) {
  std::vector<Config> all;
  const auto add = [&](std::string name, auto set) {
    Config c{std::move(name), {}, {}};
    set(c);
    all.push_back(std::move(c));
  };
  add("greedy", [](Config& c) { c.params.temperature = 0.0; });
  add("greedy, repetition 1.3, 3 logprobs", [](Config& c) {
    c.params.temperature = 0.0;
    c.params.repetition_penalty = 1.3;
    c.params.logprobs = true;
    c.params.top_logprobs = 3;
  });
  add("T=0.8", [](Config& c) { c.params.temperature = 0.8; });
  add("T=1 top-k 40 top-p 0.9, 5 logprobs", [](Config& c) {
    c.params.top_k = 40;
    c.params.top_p = 0.9;
    c.params.logprobs = true;
    c.params.top_logprobs = 5;
  });
  add("T=0.7 min-p 0.05, penalties", [](Config& c) {
    c.params.temperature = 0.7;
    c.params.min_p = 0.05;
    c.params.repetition_penalty = 1.2;
    c.params.frequency_penalty = 0.4;
    c.params.presence_penalty = 0.3;
  });
  add("top-p 0.5", [](Config& c) { c.params.top_p = 0.5; });
  add("top-p 0.999, T=1.5", [](Config& c) {
    c.params.top_p = 0.999;
    c.params.temperature = 1.5;
  });
  add("top-k 1", [](Config& c) { c.params.top_k = 1; });
  add("top-k past the vocabulary, 20 logprobs", [&](Config& c) {
    c.params.top_k = vocab + 7;
    c.params.logprobs = true;
    c.params.top_logprobs = 20;
  });
  add("top-k 1000 top-p 0.3 min-p 0.2", [](Config& c) {
    c.params.top_k = 1000;
    c.params.top_p = 0.3;
    c.params.min_p = 0.2;
  });
  add("T=0.05, banned ids", [&](Config& c) {
    c.params.temperature = 0.05;
    for (int i = 0; i < vocab; i += 97) c.banned.push_back(i);
    c.banned.push_back(0);  // twice
  });
  add("T=100 negative penalties", [](Config& c) {
    c.params.temperature = 100.0;
    c.params.frequency_penalty = -2.0;
    c.params.presence_penalty = -1.5;
    c.params.repetition_penalty = 0.5;
  });
  return all;
}

// Logits with the features that break careless samplers: duplicated values
// (ties across lanes and chunks), -inf (not allowed), negative zero.
std::vector<float> logits_row(std::uint64_t seed, int vocab, double scale) {
  algenta::SplitMix64 rng(seed);
  std::vector<float> row(static_cast<std::size_t>(vocab));
  for (float& v : row) {
    const double u = (static_cast<double>(rng.next() >> 11) + 0.5) * 0x1p-53;
    v = static_cast<float>(scale * std::log(u / (1.0 - u)));  // logistic: heavy-ish tails
  }
  for (int i = 0; i < vocab; i += 1031) row[static_cast<std::size_t>(i)] = row[static_cast<std::size_t>(i / 2)];
  for (int i = 5; i < vocab; i += 4099) row[static_cast<std::size_t>(i)] = -INFINITY;
  if (vocab > 3) row[3] = -0.0f;
  return row;
}

struct History {
  std::vector<std::int32_t> prompt, output;
};

History history(std::uint64_t seed, int vocab) {
  algenta::SplitMix64 rng(seed ^ 0x5151);
  History h;
  for (int i = 0; i < 40; ++i) h.prompt.push_back(static_cast<std::int32_t>(rng.next() % vocab));
  for (int i = 0; i < 12; ++i) h.output.push_back(static_cast<std::int32_t>(rng.next() % 64));
  return h;
}

// One row's request in the ABI's form, owning what it points to.
struct RowRequest {
  Config config;
  History history;
  std::uint64_t seed = 0, position = 0;
  double logprob = 0.0;
  std::int32_t top_tokens[20] = {};
  double top_values[20] = {};
  std::uint32_t top_count = 0;
  std::int32_t token = -1;
  AlgentaSampling abi{};

  void fill() {
    const sampling::SamplingParams& p = config.params;
    abi.struct_size = sizeof(AlgentaSampling);
    abi.temperature = p.temperature;
    abi.top_p = p.top_p;
    abi.top_k = p.top_k;
    abi.min_p = p.min_p;
    abi.presence_penalty = p.presence_penalty;
    abi.frequency_penalty = p.frequency_penalty;
    abi.repetition_penalty = p.repetition_penalty;
    abi.seed = seed;
    abi.prompt_tokens = history.prompt.data();
    abi.prompt_token_count = history.prompt.size();
    abi.output_tokens = history.output.data();
    abi.output_token_count = history.output.size();
    abi.banned_tokens = config.banned.data();
    abi.banned_token_count = config.banned.size();
    abi.want_logprob = p.logprobs ? 1 : 0;
    abi.top_logprobs = static_cast<std::uint32_t>(p.top_logprobs);
    abi.logprob = &logprob;
    abi.top_tokens = top_tokens;
    abi.top_values = top_values;
    abi.top_count = &top_count;
  }
};

bool close_enough(double a, double b) {
  return a == b || std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
}

// The host's draw on the same row, as the oracle engine makes it.
void compare(const RowRequest& r, const std::vector<float>& raw, const std::string& where) {
  ++g_cases;
  std::vector<float> row = raw;
  for (std::int32_t id : r.config.banned) row[static_cast<std::size_t>(id)] = -INFINITY;
  sampling::SamplingParams draw_params = r.config.params;
  draw_params.logprobs = false;
  draw_params.top_logprobs = 0;
  const std::int32_t want =
      sampling::sample_token(draw_params, {row, r.history.prompt, r.history.output, r.seed, r.position}).token;
  if (r.token != want) {
    fail(where + ": drew " + std::to_string(r.token) + ", the host draws " + std::to_string(want));
    return;
  }
  if (!r.config.params.logprobs) return;
  const sampling::LogSoftmax log_softmax(raw);
  if (!close_enough(r.logprob, log_softmax.logprob(want))) {
    fail(where + ": logprob " + std::to_string(r.logprob) + ", the host's " +
         std::to_string(log_softmax.logprob(want)));
  }
  const std::vector<sampling::TokenLogprob> top = log_softmax.top(r.config.params.top_logprobs);
  if (r.top_count != top.size()) {
    fail(where + ": " + std::to_string(r.top_count) + " top logprobs, the host has " +
         std::to_string(top.size()));
    return;
  }
  for (std::size_t k = 0; k < top.size(); ++k) {
    if (r.top_tokens[k] != top[k].token || !close_enough(r.top_values[k], top[k].logprob)) {
      fail(where + ": top logprob " + std::to_string(k) + " is token " +
           std::to_string(r.top_tokens[k]) + ", the host's " + std::to_string(top[k].token));
    }
  }
}

float* upload_rows(const std::vector<std::vector<float>>& rows, int vocab) {
  float* device = nullptr;
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&device), rows.size() * vocab * sizeof(float)), "allocating logits");
  for (std::size_t r = 0; r < rows.size(); ++r) {
    check_cuda(cudaMemcpy(device + r * vocab, rows[r].data(), vocab * sizeof(float), cudaMemcpyHostToDevice),
               "uploading logits");
  }
  return device;
}

void check_vocabulary(int vocab, cudaStream_t stream) {
  DeviceSampler sampler(vocab);
  const std::vector<Config> all = configs(vocab);
  // Two rows per configuration, more rows than one launch holds.
  std::vector<std::vector<float>> rows;
  std::vector<RowRequest> requests;
  for (std::size_t c = 0; c < all.size(); ++c) {
    for (int copy = 0; copy < 2; ++copy) {
      const std::uint64_t seed = 1000 * vocab + 10 * c + copy;
      rows.push_back(logits_row(seed, vocab, copy == 0 ? 1.0 : 4.0));
      RowRequest r;
      r.config = all[c];
      r.history = history(seed, vocab);
      r.seed = seed * 7919;
      r.position = 52 + c;
      requests.push_back(std::move(r));
    }
  }
  float* device = upload_rows(rows, vocab);
  std::vector<SampledRow> batch;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    requests[i].fill();
    batch.push_back({&requests[i].abi, static_cast<int>(i), requests[i].position, i, &requests[i].token});
  }
  sampler.draw(batch, device, stream);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    compare(requests[i], rows[i],
            "vocab " + std::to_string(vocab) + " " + requests[i].config.name + " (batched row " +
                std::to_string(i) + ")");
  }
  // Each row alone: the same token.
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const std::int32_t batched = requests[i].token;
    SampledRow alone = batch[i];
    sampler.draw({&alone, 1}, device, stream);
    ++g_cases;
    if (requests[i].token != batched) {
      fail("vocab " + std::to_string(vocab) + " " + requests[i].config.name + ": alone drew " +
           std::to_string(requests[i].token) + ", batched " + std::to_string(batched));
    }
  }
  cudaFree(device);
}

void expect_refusal(int vocab, const std::vector<float>& row, const std::string& needle,
                    cudaStream_t stream) {
  ++g_cases;
  DeviceSampler sampler(vocab);
  float* device = upload_rows({row}, vocab);
  RowRequest r;
  r.config.params.temperature = 0.9;
  r.fill();
  const SampledRow sampled{&r.abi, 0, 9, 77, &r.token};
  try {
    sampler.draw({&sampled, 1}, device, stream);
    fail("a row with " + needle + " was drawn (token " + std::to_string(r.token) + ")");
  } catch (const algenta::plugin::StatusError& e) {
    if (std::string(e.message).find(needle) == std::string::npos)
      fail("refusal \"" + e.message + "\" does not name " + needle);
  }
  cudaFree(device);
}

}  // namespace

// The vocabularies to check: argv[1] as "1000,128256" (the sanitizers run a
// small one), else the real vocabularies.
std::vector<int> vocabularies(int argc, char** argv) {
  if (argc < 2) return {1000, 128256, 151936, 262144};
  std::vector<int> out;
  std::stringstream list(argv[1]);
  for (std::string item; std::getline(list, item, ',');) {
    const int vocab = std::atoi(item.c_str());
    if (vocab < 1000 || vocab > 1 << 20) {
      std::fprintf(stderr, "sampler_exactness: vocabulary '%s' is not from 1000 to 1048576\n",
                   item.c_str());
      std::exit(2);
    }
    out.push_back(vocab);
  }
  return out;
}

int main(int argc, char** argv) {
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreate(&stream), "creating a stream");
  for (int vocab : vocabularies(argc, argv)) check_vocabulary(vocab, stream);
  std::vector<float> row = logits_row(3, 1000, 1.0);
  row[417] = NAN;
  expect_refusal(1000, row, "logits[417] is NaN", stream);
  row[417] = INFINITY;
  expect_refusal(1000, row, "logits[417] is +inf", stream);
  expect_refusal(1000, std::vector<float>(1000, -INFINITY), "no token is allowed", stream);
  std::printf("sampler: %d cases, %d failed\n", g_cases, g_failed);
  return g_failed == 0 ? 0 : 1;
}
