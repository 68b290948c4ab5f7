// Fuzzes config.json -> ModelFacts: any input must either parse or raise
// FactsError; a crash, a sanitizer report or another exception is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "facts/config_parse.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)algenta::facts::parse_model_facts(text, "fuzz/config.json");
  } catch (const algenta::facts::FactsError&) {
    // Refusing bad input is the expected outcome.
  }
  return 0;
}
