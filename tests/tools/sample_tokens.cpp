// Reads one JSON request and prints the sampled tokens as JSON, so tests can
// check the sampler's statistics without an engine or HTTP:
//   {"logits": [..., null = -inf], "params": {...SamplingParams names...},
//    "seed": 1, "position": 0, "count": 1,
//    "history": {"prompt": [ids], "output": [ids]}}
// "count" samples the same logits at positions position .. position+count-1.
// Output: {"samples": [{"position", "token", "logprob"?, "top_logprobs"?}]}.
// Usage: sample_tokens [request.json]   (stdin without an argument)
#include <cmath>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sampling/sampler.hpp"

using algenta::sampling::SamplingError;
using algenta::sampling::SamplingParams;
using nlohmann::json;

namespace {

void refuse_unknown_keys(const json& object, const std::set<std::string>& known,
                         const std::string& where) {
  for (const auto& item : object.items())
    if (!known.contains(item.key()))
      throw SamplingError("unknown field " + where + item.key());
}

SamplingParams read_params(const json& j) {
  refuse_unknown_keys(j, {"temperature", "top_p", "top_k", "min_p", "presence_penalty",
                          "frequency_penalty", "repetition_penalty", "logprobs", "top_logprobs"},
                      "params.");
  SamplingParams p;
  p.temperature = j.value("temperature", p.temperature);
  p.top_p = j.value("top_p", p.top_p);
  p.top_k = j.value("top_k", p.top_k);
  p.min_p = j.value("min_p", p.min_p);
  p.presence_penalty = j.value("presence_penalty", p.presence_penalty);
  p.frequency_penalty = j.value("frequency_penalty", p.frequency_penalty);
  p.repetition_penalty = j.value("repetition_penalty", p.repetition_penalty);
  p.logprobs = j.value("logprobs", p.logprobs);
  p.top_logprobs = j.value("top_logprobs", p.top_logprobs);
  return p;
}

std::vector<float> read_logits(const json& j) {
  std::vector<float> logits;
  logits.reserve(j.size());
  for (const json& v : j) logits.push_back(v.is_null() ? -INFINITY : v.get<float>());
  return logits;
}

json run(const json& request) {
  refuse_unknown_keys(request, {"logits", "params", "seed", "position", "count", "history"}, "");
  const std::vector<float> logits = read_logits(request.at("logits"));
  const SamplingParams params = read_params(request.value("params", json::object()));
  const json history = request.value("history", json::object());
  refuse_unknown_keys(history, {"prompt", "output"}, "history.");
  const auto prompt = history.value("prompt", std::vector<std::int32_t>{});
  const auto output = history.value("output", std::vector<std::int32_t>{});
  const auto seed = request.value("seed", std::uint64_t{0});
  const auto first = request.value("position", std::uint64_t{0});
  const auto count = request.value("count", std::uint64_t{1});

  json samples = json::array();
  for (std::uint64_t i = 0; i < count; ++i) {
    const auto r =
        algenta::sampling::sample_token(params, {logits, prompt, output, seed, first + i});
    json s = {{"position", first + i}, {"token", r.token}};
    if (r.logprob) {
      s["logprob"] = *r.logprob;
      json top = json::array();
      for (const auto& t : r.top_logprobs) top.push_back({{"token", t.token}, {"logprob", t.logprob}});
      s["top_logprobs"] = top;
    }
    samples.push_back(s);
  }
  return {{"samples", samples}};
}

}  // namespace

int main(int argc, char** argv) {
  try {
    json request;
    if (argc > 1) {
      std::ifstream in(argv[1]);
      if (!in) throw std::runtime_error(std::string("cannot open ") + argv[1]);
      request = json::parse(in);
    } else {
      request = json::parse(std::cin);
    }
    std::cout << run(request).dump() << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}
