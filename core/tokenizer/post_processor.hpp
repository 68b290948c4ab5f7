// The `post_processor` section for single sequences: TemplateProcessing
// (the special tokens around $A), ByteLevel (no change to ids) and Sequence.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string_view>
#include <vector>

namespace algenta::tokenizer {

class PostProcessor {
 public:
  static PostProcessor from_json(const nlohmann::json& section, std::string_view path);

  // What encode(text, add_special_tokens=true) returns for these ids.
  std::vector<std::uint32_t> with_special_tokens(const std::vector<std::uint32_t>& ids) const;

 private:
  void add(const nlohmann::json& component, const std::string& path);

  // Each template is a list of parts: special token ids, or the sequence (empty optional).
  struct Part {
    bool is_sequence;
    std::vector<std::uint32_t> ids;
  };
  std::vector<std::vector<Part>> templates_;
};

}  // namespace algenta::tokenizer
