// The algenta.bench/2 document. Times are seconds, rates per second, sizes
// bytes; every figure of a cell has its median, min, max and per-run values.
// A figure that could not be measured is null, with the reason beside it.
#include "bench/bench_report.hpp"

namespace algenta::host::bench {
namespace {

using nlohmann::json;

json figure_json(const Figure& figure) {
  return {{"median", figure.spread.median},
          {"min", figure.spread.min},
          {"max", figure.spread.max},
          {"values", figure.values}};
}

json optional_json(const std::optional<std::uint64_t>& value) {
  return value ? json(*value) : json(nullptr);
}

json config_json(const BenchReport& r) {
  const facts::ModelFacts& m = r.model;
  return {{"family", std::string(facts::family_name(m.family))},
          {"model_type", m.model_type},
          {"hidden_size", m.hidden_size},
          {"num_hidden_layers", m.num_hidden_layers},
          {"num_attention_heads", m.num_attention_heads},
          {"num_key_value_heads", m.num_key_value_heads},
          {"head_dim", m.head_dim},
          {"intermediate_size", m.intermediate_size},
          {"vocab_size", m.vocab_size},
          {"max_position_embeddings", m.max_position_embeddings},
          {"tie_word_embeddings", m.tie_word_embeddings},
          {"torch_dtype", m.torch_dtype},
          {"weight_dtype", r.weight_dtype},
          {"served_context", r.served_context},
          {"engine_memory_bytes",
           {{"weights", r.engine_memory.weights},
            {"kv_cache", r.engine_memory.kv_cache},
            {"workspace", r.engine_memory.workspace},
            {"sequences", r.engine_memory.sequences}}}};
}

json bandwidth_json(const StreamBandwidth& b) {
  if (!b.available) return {{"available", false}, {"reason", b.reason}, {"tool", b.tool}};
  return {{"available", true},
          {"gbytes_per_s", b.gbytes_per_s},
          {"bytes", b.bytes},
          {"runs", b.runs},
          {"tool", b.tool}};
}

json byte_model_json(const ByteModel& m) {
  if (!m.bytes)
    return {{"available", false}, {"reason", m.reason}, {"formula", kDecodeBytesFormula}};
  return {{"available", true},
          {"formula", kDecodeBytesFormula},
          {"weight_element_bytes", m.weight_element_bytes},
          {"kv_element_bytes", m.kv_element_bytes},
          {"weight_elements", m.bytes->weight_elements},
          {"weight_bytes_per_token", m.bytes->weight_bytes},
          {"kv_bytes_per_layer_position", m.bytes->kv_bytes_per_layer_position}};
}

json cell_json(const CellSummary& c) {
  return {{"prompt_tokens", c.prompt_tokens},
          {"generated_tokens", c.generated_tokens},
          {"concurrency", c.concurrency},
          {"runs", c.ttft_s.values.size()},
          {"ttft_s", figure_json(c.ttft_s)},
          {"prefill_tokens_per_s", figure_json(c.prefill_tokens_per_s)},
          {"decode_tokens_per_s", figure_json(c.decode_tokens_per_s)},
          {"inter_token_p50_s", figure_json(c.inter_token_p50_s)},
          {"inter_token_p95_s", figure_json(c.inter_token_p95_s)},
          {"peak_device_memory_bytes", optional_json(c.peak_device_bytes)},
          {"mean_decode_context", c.mean_decode_context},
          {"decode_bytes_per_token",
           c.decode_bytes_per_token ? json(*c.decode_bytes_per_token) : json(nullptr)},
          {"bandwidth_fraction",
           c.bandwidth_fraction ? figure_json(*c.bandwidth_fraction) : json(nullptr)},
          {"device_to_host_bytes_per_decode_step",
           c.device_to_host_bytes_per_step ? figure_json(*c.device_to_host_bytes_per_step)
                                           : json(nullptr)}};
}

}  // namespace

json to_json(const BenchReport& r) {
  json cells = json::array();
  for (const CellSummary& cell : r.cells) cells.push_back(cell_json(cell));
  const BenchArguments& a = r.arguments;
  return {{"schema", kBenchSchema},
          {"started", r.started},
          {"seconds", r.seconds},
          {"host", r.host},
          {"plugin",
           {{"name", r.plugin.name},
            {"sha256", r.plugin.sha256},
            {"target", r.plugin.target},
            {"role", r.plugin.role},
            {"bundle", r.plugin.bundle}}},
          {"verification", r.verification},
          {"precision", r.precision},
          {"weights", r.weights},
          {"config", config_json(r)},
          {"settings",
           {{"shapes", a.prompt_lengths},
            {"gen", a.generated},
            {"runs", a.runs},
            {"warmup", a.warmup},
            {"concurrency", a.concurrency}}},
          {"bandwidth", bandwidth_json(r.bandwidth)},
          {"decode_bytes", byte_model_json(r.byte_model)},
          {"cold_start",
           {{"measured", r.cold_start.seconds.has_value()},
            {"seconds", r.cold_start.seconds ? json(*r.cold_start.seconds) : json(nullptr)},
            {"note", r.cold_start.note}}},
          {"peak_device_memory_bytes", optional_json(r.peak_device_bytes)},
          {"cells", cells}};
}

}  // namespace algenta::host::bench
