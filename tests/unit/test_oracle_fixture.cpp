#include "unit/test_oracle_fixture.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <numbers>
#include <stdexcept>

#include "checkpoint/resident_format.hpp"
#include "loader/plugin_calls.hpp"
#include "random/splitmix64.hpp"
#include "support/bundle_fixture.hpp"

namespace algenta::test::oracle {
namespace {

using nlohmann::json;

// Values drawn from a SplitMix64 stream: the same for a seed everywhere.
class Random {
 public:
  explicit Random(std::uint64_t seed) : stream_(seed) {}
  std::uint64_t next() { return stream_.next(); }
  // An integer in [-range, range] times 2^-exponent: exact in f32, bf16, f16.
  float small_exact(int range, int exponent) {
    const int k = static_cast<int>(next() % static_cast<std::uint64_t>(2 * range + 1)) - range;
    return std::ldexp(static_cast<float>(k), -exponent);
  }

 private:
  SplitMix64 stream_;
};

struct Dims {
  std::int64_t hidden, layers, heads, kv_heads, head_dim, inter, vocab;
  bool tied, qkv_bias, o_bias, qk_norm;
  double eps, theta;
};

Dims dims_of(const json& c) {
  Dims d{};
  d.hidden = c.at("hidden_size");
  d.layers = c.at("num_hidden_layers");
  d.heads = c.at("num_attention_heads");
  d.kv_heads = c.value("num_key_value_heads", d.heads);
  d.head_dim = c.contains("head_dim") ? c.at("head_dim").get<std::int64_t>() : d.hidden / d.heads;
  d.inter = c.at("intermediate_size");
  d.vocab = c.at("vocab_size");
  d.tied = c.value("tie_word_embeddings", false);
  const std::string type = c.at("model_type");
  const bool attention_bias = c.value("attention_bias", false);
  d.qkv_bias = type == "qwen2" || attention_bias;
  d.o_bias = type != "qwen2" && attention_bias;
  d.qk_norm = type == "qwen3";
  d.eps = c.at("rms_norm_eps");
  d.theta = c.at("rope_theta");
  return d;
}

json base_config(const char* architecture, const char* model_type) {
  return {{"architectures", {architecture}},
          {"model_type", model_type},
          {"hidden_size", 64},
          {"num_hidden_layers", 2},
          {"num_attention_heads", 4},
          {"num_key_value_heads", 2},
          {"intermediate_size", 96},
          {"vocab_size", 101},  // odd: exercises the dot products' tails
          {"max_position_embeddings", 64},
          {"rope_theta", 10000.0},
          {"rms_norm_eps", 1e-5},
          {"hidden_act", "silu"},
          {"tie_word_embeddings", false}};
}

// ---- the reference forward pass, in double ----------------------------------

using Vec = std::vector<double>;

Vec matvec(const Tensor& w, const Vec& x) {
  const std::size_t rows = static_cast<std::size_t>(w.shape[0]);
  const std::size_t cols = static_cast<std::size_t>(w.shape[1]);
  Vec y(rows, 0.0);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c)
      y[r] += static_cast<double>(w.values[r * cols + c]) * x[c];
  }
  return y;
}

Vec rmsnorm(const Vec& x, const float* weight, double eps) {
  double sum = 0.0;
  for (const double v : x) sum += v * v;
  const double scale = 1.0 / std::sqrt(sum / static_cast<double>(x.size()) + eps);
  Vec y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = weight[i] * (x[i] * scale);
  return y;
}

std::vector<double> inverse_frequencies(const json& c, std::size_t head_dim) {
  std::vector<double> inv(head_dim / 2);
  const double theta = c.at("rope_theta");
  for (std::size_t i = 0; i < inv.size(); ++i) {
    inv[i] = 1.0 / std::pow(theta, static_cast<double>(2 * i) / static_cast<double>(head_dim));
  }
  if (!c.contains("rope_scaling") || c.at("rope_scaling").is_null()) return inv;
  const json& s = c.at("rope_scaling");
  const std::string type = s.contains("rope_type") ? s.at("rope_type") : s.at("type");
  const double factor = s.at("factor");
  for (double& f : inv) {
    if (type == "linear") {
      f /= factor;
    } else if (type == "llama3") {
      const double original = s.at("original_max_position_embeddings");
      const double low = s.at("low_freq_factor");
      const double high = s.at("high_freq_factor");
      const double wavelen = 2 * std::numbers::pi / f;
      if (wavelen > original / low) {
        f /= factor;
      } else if (wavelen >= original / high) {
        const double smooth = (original / wavelen - low) / (high - low);
        f = (1 - smooth) * f / factor + smooth * f;
      }
    }
  }
  return inv;
}

void rotate(double* x, std::size_t head_dim, const std::vector<double>& inv, std::size_t position) {
  const std::size_t half = head_dim / 2;
  for (std::size_t i = 0; i < half; ++i) {
    const double angle = static_cast<double>(position) * inv[i];
    const double a = x[i];
    const double b = x[i + half];
    x[i] = a * std::cos(angle) - b * std::sin(angle);
    x[i + half] = b * std::cos(angle) + a * std::sin(angle);
  }
}

void add(Vec& x, const Tensor& bias) {
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += bias.values[i];
}

}  // namespace

const std::vector<std::string>& tiny_families() {
  static const std::vector<std::string> families = {"llama", "mistral", "qwen2", "qwen3"};
  return families;
}

json tiny_config(std::string_view family) {
  if (family == "llama") {
    json c = base_config("LlamaForCausalLM", "llama");
    c["head_dim"] = 16;
    c["attention_bias"] = true;
    c["mlp_bias"] = false;
    // head_dim 16, theta 1e4: wavelengths 6..19869, so the three llama3
    // bands (kept, blended, divided) all occur.
    c["rope_scaling"] = {{"rope_type", "llama3"},
                         {"factor", 8.0},
                         {"low_freq_factor", 1.0},
                         {"high_freq_factor", 4.0},
                         {"original_max_position_embeddings", 256}};
    return c;
  }
  if (family == "mistral") {
    json c = base_config("MistralForCausalLM", "mistral");
    c["rope_theta"] = 1000000.0;
    c["sliding_window"] = nullptr;
    return c;
  }
  if (family == "qwen2") {
    json c = base_config("Qwen2ForCausalLM", "qwen2");
    c["tie_word_embeddings"] = true;
    c["use_sliding_window"] = false;
    c["rope_scaling"] = {{"type", "linear"}, {"factor", 2.0}};
    return c;
  }
  if (family == "qwen3") {
    json c = base_config("Qwen3ForCausalLM", "qwen3");
    c["hidden_size"] = 48;  // q is heads * head_dim = 64 wide, not hidden
    c["head_dim"] = 16;
    c["tie_word_embeddings"] = true;
    c["attention_bias"] = false;
    c["use_sliding_window"] = false;
    c["rope_theta"] = 1000000.0;
    c["rms_norm_eps"] = 1e-6;
    return c;
  }
  throw std::invalid_argument("no tiny config for " + std::string(family));
}

TinyModel make_tiny_model(const json& config, std::uint64_t seed) {
  const Dims d = dims_of(config);
  TinyModel model;
  model.config = config;
  Random random(seed);
  auto matrix = [&](const std::string& name, std::int64_t rows, std::int64_t cols, int exponent) {
    Tensor t{{rows, cols}, std::vector<float>(static_cast<std::size_t>(rows * cols))};
    for (float& v : t.values) v = random.small_exact(128, exponent);
    model.tensors[name] = std::move(t);
  };
  auto vector = [&](const std::string& name, std::int64_t size, float offset, int exponent) {
    Tensor t{{size}, std::vector<float>(static_cast<std::size_t>(size))};
    for (float& v : t.values) v = offset + random.small_exact(32, exponent);
    model.tensors[name] = std::move(t);
  };
  const std::int64_t q = d.heads * d.head_dim;
  const std::int64_t kv = d.kv_heads * d.head_dim;
  matrix("model.embed_tokens.weight", d.vocab, d.hidden, 7);
  vector("model.norm.weight", d.hidden, 1.0f, 7);
  if (!d.tied) matrix("lm_head.weight", d.vocab, d.hidden, 9);
  for (std::int64_t i = 0; i < d.layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    vector(p + "input_layernorm.weight", d.hidden, 1.0f, 7);
    vector(p + "post_attention_layernorm.weight", d.hidden, 1.0f, 7);
    matrix(p + "self_attn.q_proj.weight", q, d.hidden, 8);
    matrix(p + "self_attn.k_proj.weight", kv, d.hidden, 8);
    matrix(p + "self_attn.v_proj.weight", kv, d.hidden, 9);
    matrix(p + "self_attn.o_proj.weight", d.hidden, q, 9);
    if (d.qkv_bias) {
      vector(p + "self_attn.q_proj.bias", q, 0.0f, 7);
      vector(p + "self_attn.k_proj.bias", kv, 0.0f, 7);
      vector(p + "self_attn.v_proj.bias", kv, 0.0f, 7);
    }
    if (d.o_bias) vector(p + "self_attn.o_proj.bias", d.hidden, 0.0f, 7);
    if (d.qk_norm) {
      vector(p + "self_attn.q_norm.weight", d.head_dim, 1.0f, 7);
      vector(p + "self_attn.k_norm.weight", d.head_dim, 1.0f, 7);
    }
    matrix(p + "mlp.gate_proj.weight", d.inter, d.hidden, 9);
    matrix(p + "mlp.up_proj.weight", d.inter, d.hidden, 9);
    matrix(p + "mlp.down_proj.weight", d.hidden, d.inter, 9);
  }
  return model;
}

void write_checkpoint(const TinyModel& model, const fs::path& dir, checkpoint::Dtype dtype) {
  const fs::path side = dir.string() + ".side";
  fs::create_directories(side);
  std::ofstream(side / "config.json") << model.config.dump(2);
  checkpoint::ResidentWriter writer(dir, dtype, json{{"test", "tiny"}}, json::object());
  for (const auto& [name, tensor] : model.tensors) {
    writer.add_tensor(name, tensor.shape, checkpoint::Dtype::F32,
                      std::as_bytes(std::span(tensor.values)));
  }
  writer.add_side_file(side / "config.json");
  writer.commit();
  fs::remove_all(side);
}

std::vector<std::int32_t> random_tokens(std::size_t count, std::int64_t vocab, std::uint64_t seed) {
  Random random(seed);
  std::vector<std::int32_t> tokens(count);
  for (std::int32_t& t : tokens)
    t = static_cast<std::int32_t>(random.next() % static_cast<std::uint64_t>(vocab));
  return tokens;
}

std::vector<std::vector<double>> reference_logits(const TinyModel& model,
                                                  const std::vector<std::int32_t>& tokens) {
  const Dims d = dims_of(model.config);
  const auto& w = model.tensors;
  auto at = [&](const std::string& name) -> const Tensor& { return w.at(name); };
  const std::size_t n = tokens.size();
  const std::size_t hd = static_cast<std::size_t>(d.head_dim);
  const std::size_t heads = static_cast<std::size_t>(d.heads);
  const std::size_t kv_heads = static_cast<std::size_t>(d.kv_heads);
  const std::vector<double> inv = inverse_frequencies(model.config, hd);

  std::vector<Vec> x(n);
  const Tensor& embed = at("model.embed_tokens.weight");
  for (std::size_t t = 0; t < n; ++t) {
    const float* row = embed.values.data() + static_cast<std::size_t>(tokens[t]) * d.hidden;
    x[t].assign(row, row + d.hidden);
  }
  for (std::int64_t layer = 0; layer < d.layers; ++layer) {
    const std::string p = "model.layers." + std::to_string(layer) + ".";
    std::vector<Vec> q(n), k(n), v(n);
    for (std::size_t t = 0; t < n; ++t) {
      const Vec h = rmsnorm(x[t], at(p + "input_layernorm.weight").values.data(), d.eps);
      q[t] = matvec(at(p + "self_attn.q_proj.weight"), h);
      k[t] = matvec(at(p + "self_attn.k_proj.weight"), h);
      v[t] = matvec(at(p + "self_attn.v_proj.weight"), h);
      if (d.qkv_bias) {
        add(q[t], at(p + "self_attn.q_proj.bias"));
        add(k[t], at(p + "self_attn.k_proj.bias"));
        add(v[t], at(p + "self_attn.v_proj.bias"));
      }
      for (std::size_t h_i = 0; h_i < heads; ++h_i) {
        double* head = q[t].data() + h_i * hd;
        if (d.qk_norm) {
          const Vec normed =
              rmsnorm(Vec(head, head + hd), at(p + "self_attn.q_norm.weight").values.data(), d.eps);
          std::copy(normed.begin(), normed.end(), head);
        }
        rotate(head, hd, inv, t);
      }
      for (std::size_t h_i = 0; h_i < kv_heads; ++h_i) {
        double* head = k[t].data() + h_i * hd;
        if (d.qk_norm) {
          const Vec normed =
              rmsnorm(Vec(head, head + hd), at(p + "self_attn.k_norm.weight").values.data(), d.eps);
          std::copy(normed.begin(), normed.end(), head);
        }
        rotate(head, hd, inv, t);
      }
    }
    for (std::size_t t = 0; t < n; ++t) {
      Vec attention(heads * hd, 0.0);
      for (std::size_t h_i = 0; h_i < heads; ++h_i) {
        const std::size_t g = h_i / (heads / kv_heads);  // consecutive query heads share a kv head
        std::vector<double> score(t + 1);
        double top = -INFINITY;
        for (std::size_t s = 0; s <= t; ++s) {
          double dot = 0.0;
          for (std::size_t i = 0; i < hd; ++i) dot += q[t][h_i * hd + i] * k[s][g * hd + i];
          score[s] = dot / std::sqrt(static_cast<double>(hd));
          top = std::max(top, score[s]);
        }
        double sum = 0.0;
        for (double& e : score) sum += (e = std::exp(e - top));
        for (std::size_t s = 0; s <= t; ++s) {
          for (std::size_t i = 0; i < hd; ++i)
            attention[h_i * hd + i] += score[s] / sum * v[s][g * hd + i];
        }
      }
      Vec o = matvec(at(p + "self_attn.o_proj.weight"), attention);
      if (d.o_bias) add(o, at(p + "self_attn.o_proj.bias"));
      for (std::int64_t i = 0; i < d.hidden; ++i) x[t][i] += o[i];

      const Vec h = rmsnorm(x[t], at(p + "post_attention_layernorm.weight").values.data(), d.eps);
      Vec gate = matvec(at(p + "mlp.gate_proj.weight"), h);
      const Vec up = matvec(at(p + "mlp.up_proj.weight"), h);
      for (std::size_t i = 0; i < gate.size(); ++i)
        gate[i] = gate[i] / (1.0 + std::exp(-gate[i])) * up[i];
      const Vec down = matvec(at(p + "mlp.down_proj.weight"), gate);
      for (std::int64_t i = 0; i < d.hidden; ++i) x[t][i] += down[i];
    }
  }
  const Tensor& head = d.tied ? embed : at("lm_head.weight");
  std::vector<std::vector<double>> logits(n);
  for (std::size_t t = 0; t < n; ++t) {
    logits[t] = matvec(head, rmsnorm(x[t], at("model.norm.weight").values.data(), d.eps));
  }
  return logits;
}

// ---- plugin driving ----------------------------------------------------------

fs::path oracle_plugin_path() { return vendor_bundle_dir() / "libalgenta_cpu_oracle.so"; }

fs::path mutant_plugin_path(std::string_view name) {
  return test_plugin_dir() / ("libalgenta_" + std::string(name) + ".so");
}

Plugin::Plugin(const fs::path& file) {
  library_ = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) throw std::runtime_error(std::string("dlopen: ") + dlerror());
  const auto entry =
      reinterpret_cast<AlgentaPluginEntryFn>(dlsym(library_, ALGENTA_PLUGIN_ENTRY_SYMBOL));
  table_ = entry != nullptr ? entry(ALGENTA_ABI_MAJOR) : nullptr;
  if (table_ == nullptr) {
    dlclose(library_);
    throw std::runtime_error("no ABI v1 table in " + file.string());
  }
}

Plugin::~Plugin() { dlclose(library_); }

Outcome outcome_of(const AlgentaPluginV1& table, AlgentaError* error) {
  Outcome outcome;
  if (error == nullptr) return outcome;
  const loader::PluginFailure failure = loader::take_error(table, error);
  outcome.code = failure.code;
  outcome.message = failure.message;
  return outcome;
}

namespace {

// Sets (or unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value.empty()) {
      ::unsetenv(name);
    } else {
      ::setenv(name, value.c_str(), 1);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

AlgentaEngineOpen_Args open_args(const std::string& dir, const EngineOptions& options) {
  AlgentaEngineOpen_Args args{};
  args.struct_size = ALGENTA_EngineOpen_Args_STRUCT_SIZE;
  args.checkpoint_dir = dir.c_str();
  args.precision = options.precision;
  args.round_weights_to = options.round_weights_to;
  args.requested_max_context = options.max_context;
  args.max_sequences = options.max_sequences;
  args.host_block_tables = options.host_block_tables ? 1 : 0;
  args.kv_cache_bytes = options.kv_cache_bytes;
  args.engine_samples = options.engine_sampling ? 1 : 0;
  return args;
}

}  // namespace

Outcome Engine::try_open(const Plugin& plugin, const fs::path& checkpoint,
                         const EngineOptions& options, AlgentaEngineOpen_Args* out) {
  const ScopedEnv threads("ALGENTA_ORACLE_THREADS", options.threads);
  const ScopedEnv isa("ALGENTA_ORACLE_ISA", options.isa);
  const std::string dir = checkpoint.string();
  AlgentaEngineOpen_Args args = open_args(dir, options);
  const Outcome outcome = outcome_of(plugin.table(), plugin.table().engine_open(&args));
  if (outcome.ok()) loader::close_engine(plugin.table(), args.engine);
  if (out != nullptr) {
    *out = args;
    out->checkpoint_dir = nullptr;
    out->engine = nullptr;
  }
  return outcome;
}

Engine::Engine(const Plugin& plugin, const fs::path& checkpoint, const EngineOptions& options)
    : plugin_(plugin) {
  const ScopedEnv threads("ALGENTA_ORACLE_THREADS", options.threads);
  const ScopedEnv isa("ALGENTA_ORACLE_ISA", options.isa);
  const std::string dir = checkpoint.string();
  AlgentaEngineOpen_Args args = open_args(dir, options);
  const Outcome outcome = outcome_of(plugin.table(), plugin.table().engine_open(&args));
  if (!outcome.ok()) throw std::runtime_error("engine_open: " + outcome.message);
  engine_ = args.engine;
  vocab_ = args.vocab_size;
  max_context_ = args.served_max_context;
}

Engine::~Engine() { loader::close_engine(plugin_.table(), engine_); }

StepOutput Engine::step(const std::vector<ChunkSpec>& chunks,
                        std::optional<std::size_t> logits_capacity) {
  std::vector<AlgentaSequenceChunk> raw(chunks.size());
  std::size_t requested = 0;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const ChunkSpec& c = chunks[i];
    raw[i].struct_size = ALGENTA_SequenceChunk_STRUCT_SIZE;
    raw[i].sequence_id = c.sequence_id;
    raw[i].tokens = c.tokens.data();
    raw[i].token_count = static_cast<std::uint32_t>(c.tokens.size());
    raw[i].start_position = c.start_position;
    raw[i].want_logits = static_cast<AlgentaLogitsRequest>(c.want_logits);
    raw[i].block_table = c.block_table.empty() ? nullptr : c.block_table.data();
    raw[i].block_count = static_cast<std::uint32_t>(c.block_table.size());
    raw[i].sampling = c.sampling;
    if (c.want_logits == ALGENTA_LOGITS_LAST) requested += vocab_;
    if (c.want_logits == ALGENTA_LOGITS_ALL) requested += c.tokens.size() * vocab_;
  }
  StepOutput output;
  output.next_tokens.assign(chunks.size(), -1);
  output.logits.assign(logits_capacity.value_or(requested), 0.0f);
  AlgentaEngineStep_Args args{};
  args.struct_size = ALGENTA_EngineStep_Args_STRUCT_SIZE;
  args.engine = engine_;
  args.chunks = raw.data();
  args.chunk_count = raw.size();
  args.chunk_stride = sizeof(AlgentaSequenceChunk);
  args.next_tokens = output.next_tokens.data();
  args.logits = output.logits.empty() ? nullptr : output.logits.data();
  args.logits_capacity = output.logits.size();
  output.outcome = outcome_of(plugin_.table(), plugin_.table().engine_step(&args));
  return output;
}

Outcome Engine::free(const std::vector<std::uint64_t>& ids) {
  AlgentaSequencesFree_Args args{};
  args.struct_size = ALGENTA_SequencesFree_Args_STRUCT_SIZE;
  args.engine = engine_;
  args.sequence_ids = ids.data();
  args.sequence_count = ids.size();
  return outcome_of(plugin_.table(), plugin_.table().sequences_free(&args));
}

AlgentaMemoryReport_Args Engine::memory() {
  AlgentaMemoryReport_Args args{};
  args.struct_size = ALGENTA_MemoryReport_Args_STRUCT_SIZE;
  args.engine = engine_;
  const Outcome outcome = outcome_of(plugin_.table(), plugin_.table().memory_report(&args));
  if (!outcome.ok()) throw std::runtime_error("memory_report: " + outcome.message);
  return args;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// ---- shared checks -------------------------------------------------------------

namespace {

// Feeds `tokens` to sequence 1 in chunks of the given sizes, every position's
// logits kept; fails the verdict on any refused step.
StepOutput run_chunked(Engine& engine, const std::vector<std::int32_t>& tokens,
                       const std::vector<std::size_t>& chunk_sizes) {
  StepOutput all;
  std::size_t position = 0;
  for (const std::size_t size : chunk_sizes) {
    ChunkSpec chunk{1,
                    {tokens.begin() + position, tokens.begin() + position + size},
                    static_cast<std::uint32_t>(position),
                    ALGENTA_LOGITS_ALL};
    StepOutput out = engine.step({chunk});
    if (!out.outcome.ok()) return out;
    all.logits.insert(all.logits.end(), out.logits.begin(), out.logits.end());
    all.next_tokens.push_back(out.next_tokens[0]);
    position += size;
  }
  return all;
}

}  // namespace

Verdict matches_reference(const Plugin& plugin, const TinyModel& model, const fs::path& checkpoint,
                          const std::vector<std::int32_t>& tokens,
                          const std::vector<std::size_t>& chunk_sizes) {
  Engine engine(plugin, checkpoint);
  const StepOutput out = run_chunked(engine, tokens, chunk_sizes);
  if (!out.outcome.ok()) return {false, "step refused: " + out.outcome.message};
  const auto expected = reference_logits(model, tokens);
  const std::size_t vocab = engine.vocab();
  double scale = 1.0;
  for (const auto& row : expected) {
    for (const double v : row) scale = std::max(scale, std::fabs(v));
  }
  double worst = 0.0;
  std::string where;
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    for (std::size_t i = 0; i < vocab; ++i) {
      const double error = std::fabs(out.logits[t * vocab + i] - expected[t][i]) / scale;
      if (error > worst) {
        worst = error;
        where = "position " + std::to_string(t) + " logit " + std::to_string(i) + ": oracle " +
                std::to_string(out.logits[t * vocab + i]) + ", reference " +
                std::to_string(expected[t][i]);
      }
    }
  }
  if (worst > 1e-4)
    return {false, "largest relative error " + std::to_string(worst) + " at " + where};
  return {true, "largest relative error " + std::to_string(worst)};
}

Verdict chunking_is_invisible(const Plugin& plugin, const fs::path& checkpoint,
                              const std::vector<std::int32_t>& tokens) {
  const std::size_t n = tokens.size();
  const std::vector<std::vector<std::size_t>> plans = {
      {n}, {n / 3, n / 3, n - 2 * (n / 3)}, std::vector<std::size_t>(n, 1)};
  const char* names[] = {"one chunk", "three chunks", "token by token"};
  std::vector<StepOutput> results;
  for (const auto& plan : plans) {
    Engine engine(plugin, checkpoint);
    results.push_back(run_chunked(engine, tokens, plan));
    if (!results.back().outcome.ok())
      return {false, "step refused: " + results.back().outcome.message};
  }
  for (std::size_t i = 1; i < results.size(); ++i) {
    if (!same_bits(results[0].logits, results[i].logits)) {
      return {false, std::string(names[i]) + " gives other logits than " + names[0]};
    }
    if (results[0].next_tokens.back() != results[i].next_tokens.back()) {
      return {false, std::string(names[i]) + " gives another next token than " + names[0]};
    }
  }
  return {true, ""};
}

}  // namespace algenta::test::oracle
