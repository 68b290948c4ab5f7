#include "openai/request_common.hpp"

#include "json/strict_json.hpp"

namespace algenta::openai::detail {

nlohmann::json parse_body(std::string_view body) {
  nlohmann::json root;
  try {
    root = strict_json::parse(body, 64);
  } catch (const strict_json::StrictJsonError& e) {
    const std::string where = strict_json::dotted_path(e.path);
    throw ApiError(ErrorKind::invalid_request,
                   std::string("the request body is not valid JSON") +
                       (where.empty() ? "" : " (at " + where + ")") + ": " + e.what());
  }
  if (!root.is_object()) {
    throw ApiError(ErrorKind::invalid_request,
                   std::string("the request body must be a JSON object, got ") +
                       strict_json::type_name(root));
  }
  return root;
}

std::string read_model(FieldReader& fields) {
  const auto model = fields.string("model");
  if (!model || model->empty()) fields.fail("model", "'model' is required (a non-empty string)");
  return *model;
}

namespace {

std::vector<std::string> read_stop(FieldReader& fields, const RequestCaps& caps) {
  const nlohmann::json* v = fields.get("stop");
  if (!v) return {};
  std::vector<std::string> stop;
  if (v->is_string()) {
    stop.push_back(v->get<std::string>());
  } else if (v->is_array()) {
    if (v->size() > caps.max_stop_sequences) {
      fields.fail("stop", "'stop' has " + std::to_string(v->size()) +
                              " sequences, over the cap of " +
                              std::to_string(caps.max_stop_sequences));
    }
    for (std::size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_string()) {
        fields.wrong_type("stop", ("a string or a list of strings (item " + std::to_string(i) +
                                   " is not a string)").c_str(),
                          (*v)[i]);
      }
      stop.push_back((*v)[i].get<std::string>());
    }
  } else {
    fields.wrong_type("stop", "a string or a list of strings", *v);
  }
  for (std::size_t i = 0; i < stop.size(); ++i) {
    if (stop[i].empty()) fields.fail("stop", "'stop' item " + std::to_string(i) + " is empty");
    if (stop[i].size() > caps.max_stop_bytes) {
      fields.fail("stop", "'stop' item " + std::to_string(i) + " is " +
                              std::to_string(stop[i].size()) + " bytes, over the cap of " +
                              std::to_string(caps.max_stop_bytes));
    }
  }
  return stop;
}

std::vector<std::int64_t> read_token_ids(FieldReader& fields, const std::string& key,
                                         std::size_t cap, std::int64_t max_id) {
  const nlohmann::json* v = fields.get(key);
  if (!v) return {};
  if (!v->is_array()) fields.wrong_type(key, "a list of token ids", *v);
  if (v->size() > cap) {
    fields.fail(key, "'" + fields.name(key) + "' has " + std::to_string(v->size()) +
                         " token ids, over the cap of " + std::to_string(cap));
  }
  std::vector<std::int64_t> ids;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const nlohmann::json& id = (*v)[i];
    if (!id.is_number_integer() || (id.is_number_unsigned() && id.get<std::uint64_t>() > static_cast<std::uint64_t>(max_id)) ||
        id.get<std::int64_t>() < 0 || id.get<std::int64_t>() > max_id) {
      fields.fail(key, "'" + fields.name(key) + "' item " + std::to_string(i) +
                           " must be a token id from 0 to " + std::to_string(max_id) + ", got " +
                           strict_json::shown(id));
    }
    ids.push_back(id.get<std::int64_t>());
  }
  return ids;
}

}  // namespace

Sampling read_sampling(FieldReader& fields, const RequestCaps& caps) {
  Sampling s;
  const auto max_tokens = fields.integer("max_tokens", 1, caps.max_tokens);
  const auto max_completion_tokens = fields.integer("max_completion_tokens", 1, caps.max_tokens);
  if (max_tokens && max_completion_tokens && *max_tokens != *max_completion_tokens) {
    fields.fail("max_completion_tokens",
                "'max_tokens' (" + std::to_string(*max_tokens) + ") and 'max_completion_tokens' (" +
                    std::to_string(*max_completion_tokens) + ") disagree; give one");
  }
  s.max_tokens = max_completion_tokens ? max_completion_tokens : max_tokens;
  s.temperature = fields.number("temperature", 0.0, 2.0).value_or(1.0);
  s.top_p = fields.number("top_p", 0.0, 1.0, true).value_or(1.0);
  // top_k counts tokens: up to the vocabulary's size, one more than its last id.
  if (const auto k = fields.integer("top_k", -1, caps.max_token_id + 1); k && *k > 0) s.top_k = k;
  s.min_p = fields.number("min_p", 0.0, 1.0).value_or(0.0);
  s.presence_penalty = fields.number("presence_penalty", -2.0, 2.0).value_or(0.0);
  s.frequency_penalty = fields.number("frequency_penalty", -2.0, 2.0).value_or(0.0);
  s.repetition_penalty = fields.number("repetition_penalty", 0.0, 10.0, true).value_or(1.0);
  s.seed = fields.integer("seed", INT64_MIN, INT64_MAX);
  s.stop = read_stop(fields, caps);
  s.stop_token_ids =
      read_token_ids(fields, "stop_token_ids", caps.max_stop_token_ids, caps.max_token_id);
  s.ignore_eos = fields.boolean("ignore_eos").value_or(false);
  s.min_tokens = fields.integer("min_tokens", 0, caps.max_tokens).value_or(0);
  if (s.max_tokens && s.min_tokens > *s.max_tokens) {
    fields.fail("min_tokens", "'min_tokens' (" + std::to_string(s.min_tokens) +
                                  ") is above 'max_tokens' (" + std::to_string(*s.max_tokens) + ")");
  }
  return s;
}

Streaming read_streaming(FieldReader& fields) {
  Streaming s;
  s.stream = fields.boolean("stream").value_or(false);
  if (const nlohmann::json* options = fields.get("stream_options")) {
    if (!options->is_object()) fields.wrong_type("stream_options", "an object", *options);
    if (!s.stream) {
      fields.fail("stream_options", "'stream_options' is only allowed when 'stream' is true");
    }
    FieldReader inner(*options, "stream_options.");
    s.include_usage = inner.boolean("include_usage").value_or(false);
    inner.refuse_unknown();
  }
  return s;
}

void read_shared_refusals(FieldReader& fields) {
  if (const auto n = fields.integer("n", 1, 128); n && *n != 1) {
    fields.fail("n", "'n' is " + std::to_string(*n) +
                         ": this server returns one choice per request (n must be 1)");
  }
  fields.refuse_unless_empty("logit_bias", "logit bias is not implemented");
  fields.string("user");  // an end-user id for abuse tracking: does not change output
}

bool read_return_token_ids(FieldReader& fields, const Streaming& streaming) {
  const bool wanted = fields.boolean("return_token_ids").value_or(false);
  if (wanted && streaming.stream) {
    fields.fail("return_token_ids", "'return_token_ids' is supported only without 'stream'");
  }
  return wanted;
}

}  // namespace algenta::openai::detail
