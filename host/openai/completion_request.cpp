// POST /v1/completions.
#include "json/strict_json.hpp"
#include "openai/request_common.hpp"

namespace algenta::openai {
namespace {

bool is_token_list(const nlohmann::json& v) {
  if (!v.is_array() || v.empty()) return false;
  for (const nlohmann::json& id : v) {
    if (!id.is_number_integer()) return false;
  }
  return true;
}

std::vector<std::int64_t> token_ids(FieldReader& fields, const nlohmann::json& list,
                                    const RequestCaps& caps) {
  if (list.size() > caps.max_prompt_token_ids) {
    fields.fail("prompt", "'prompt' has " + std::to_string(list.size()) +
                              " token ids, over the cap of " +
                              std::to_string(caps.max_prompt_token_ids));
  }
  std::vector<std::int64_t> ids;
  ids.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& id = list[i];
    const bool in_range = !(id.is_number_unsigned() &&
                            id.get<std::uint64_t>() > static_cast<std::uint64_t>(caps.max_token_id)) &&
                          id.get<std::int64_t>() >= 0 && id.get<std::int64_t>() <= caps.max_token_id;
    if (!in_range) {
      fields.fail("prompt", "'prompt' token " + std::to_string(i) + " must be from 0 to " +
                                std::to_string(caps.max_token_id) + ", got " +
                                strict_json::shown(id));
    }
    ids.push_back(id.get<std::int64_t>());
  }
  return ids;
}

// A string, a list of one string, a list of token ids, or a list of one
// list of token ids. Several prompts in one request are refused (n = 1).
Prompt read_prompt(FieldReader& fields, const RequestCaps& caps) {
  const nlohmann::json* v = fields.get("prompt");
  if (!v) fields.fail("prompt", "'prompt' is required");
  const char* expected =
      "a string, a list of one string, a list of token ids, or a list of one list of token ids";
  if (v->is_string()) return v->get<std::string>();
  if (!v->is_array()) fields.wrong_type("prompt", expected, *v);
  if (v->empty()) fields.fail("prompt", "'prompt' is an empty list");
  if (is_token_list(*v)) return token_ids(fields, *v, caps);
  const nlohmann::json& first = (*v)[0];
  if (!first.is_string() && !first.is_array()) fields.wrong_type("prompt", expected, *v);
  if (v->size() != 1) {
    fields.fail("prompt", "'prompt' holds " + std::to_string(v->size()) +
                              " prompts: this server takes one prompt per request");
  }
  if (first.is_string()) return first.get<std::string>();
  if (!is_token_list(first)) {
    fields.fail("prompt", std::string("'prompt' must be ") + expected +
                              "; its inner list is empty or holds something other than integers");
  }
  return token_ids(fields, first, caps);
}

}  // namespace

CompletionRequest parse_completion_request(std::string_view body, const RequestCaps& caps) {
  const nlohmann::json root = detail::parse_body(body);
  FieldReader fields(root, "");
  CompletionRequest r;
  r.model = detail::read_model(fields);
  r.prompt = read_prompt(fields, caps);
  r.sampling = detail::read_sampling(fields, caps);
  r.streaming = detail::read_streaming(fields);
  if (const auto lp = fields.integer("logprobs", 0, caps.max_top_logprobs)) {
    r.logprobs = static_cast<int>(*lp);
  }
  detail::read_shared_refusals(fields);
  fields.refuse_unless("best_of", 1, "one candidate per request");
  fields.refuse_unless("echo", false, "echoing the prompt is not implemented");
  fields.refuse_unless("suffix", "", "insertion after a suffix is not implemented");
  r.return_token_ids = detail::read_return_token_ids(fields, r.streaming);
  fields.refuse_unknown();
  return r;
}

void check_model(const std::string& requested, const std::string& served) {
  if (requested != served) {
    throw ApiError(ErrorKind::model_not_found,
                   "The model '" + requested + "' does not exist; this server serves '" + served +
                       "'",
                   "model");
  }
}

}  // namespace algenta::openai
