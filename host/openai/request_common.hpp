// What the two request parsers share (internal to openai/).
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "openai/field_reader.hpp"
#include "openai/requests.hpp"

namespace algenta::openai::detail {

// The body as one JSON object (400 otherwise, naming where it broke).
nlohmann::json parse_body(std::string_view body);

std::string read_model(FieldReader& fields);
Sampling read_sampling(FieldReader& fields, const RequestCaps& caps);
Streaming read_streaming(FieldReader& fields);
// vLLM's return_token_ids (refused together with stream).
bool read_return_token_ids(FieldReader& fields, const Streaming& streaming);
// Fields both endpoints refuse unless harmless (n, logit_bias, ...) and
// fields both ignore (user).
void read_shared_refusals(FieldReader& fields);

}  // namespace algenta::openai::detail
