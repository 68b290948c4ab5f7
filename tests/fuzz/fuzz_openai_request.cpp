// Fuzzes the OpenAI request bodies: any input must either parse or raise
// ApiError, and every refusal must render as OpenAI's error JSON; a crash, a
// sanitizer report or another exception is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "openai/errors.hpp"
#include "openai/requests.hpp"

namespace {

void check_refusal(const algenta::openai::ApiError& e) {
  const auto body = nlohmann::json::parse(algenta::openai::error_body(e));
  if (!body["error"]["message"].is_string()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  try {
    (void)algenta::openai::parse_chat_request(body);
  } catch (const algenta::openai::ApiError& e) {
    check_refusal(e);
  }
  try {
    (void)algenta::openai::parse_completion_request(body);
  } catch (const algenta::openai::ApiError& e) {
    check_refusal(e);
  }
  return 0;
}
