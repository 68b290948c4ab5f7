#include "facts/family_map.hpp"

namespace algenta::facts {

Family family_for_model_type(std::string_view model_type) {
  if (model_type == "llama" || model_type == "mistral") return Family::llama;
  if (model_type == "qwen2") return Family::qwen2;
  if (model_type == "qwen3") return Family::qwen3;
  if (model_type == "gemma3" || model_type == "gemma3_text") return Family::gemma3;
  return Family::unknown;
}

}  // namespace algenta::facts
