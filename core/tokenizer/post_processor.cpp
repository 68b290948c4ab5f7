#include "tokenizer/post_processor.hpp"

#include "tokenizer/json_fields.hpp"

namespace algenta::tokenizer {

namespace jf = json_fields;

PostProcessor PostProcessor::from_json(const nlohmann::json& section, std::string_view path) {
  PostProcessor processor;
  if (!section.is_null()) processor.add(section, std::string(path));
  return processor;
}

void PostProcessor::add(const nlohmann::json& component, const std::string& path) {
  const std::string type = jf::type_of(component, path);
  if (type == "Sequence") {
    const std::string list_path = jf::child_path(path, "processors");
    const nlohmann::json& list = jf::required(component, "processors", path);
    if (!list.is_array()) jf::refuse(list_path, "expected an array");
    for (std::size_t i = 0; i < list.size(); ++i) add(list[i], jf::index_path(list_path, i));
    return;
  }
  if (type == "ByteLevel") return;  // it only trims offsets
  if (type != "TemplateProcessing") {
    jf::refuse(path, "post_processor type \"" + type +
                         "\" is not supported (supported: TemplateProcessing, ByteLevel, Sequence)");
  }
  const std::string tokens_path = jf::child_path(path, "special_tokens");
  const nlohmann::json& special = jf::object_at(jf::required(component, "special_tokens", path), tokens_path);
  const std::string single_path = jf::child_path(path, "single");
  const nlohmann::json& single = jf::required(component, "single", path);
  if (!single.is_array()) jf::refuse(single_path, "expected an array");
  std::vector<Part> parts;
  for (std::size_t i = 0; i < single.size(); ++i) {
    const std::string part_path = jf::index_path(single_path, i);
    const nlohmann::json& part = jf::object_at(single[i], part_path);
    if (part.size() == 1 && part.contains("Sequence")) {
      const std::string id = jf::required_string(jf::object_at(part["Sequence"], part_path + ".Sequence"), "id",
                                                 part_path + ".Sequence");
      if (id != "A") jf::refuse(part_path, "a single-sequence template can only hold $A, not $" + id);
      parts.push_back(Part{true, {}});
    } else if (part.size() == 1 && part.contains("SpecialToken")) {
      const std::string name = jf::required_string(jf::object_at(part["SpecialToken"], part_path + ".SpecialToken"),
                                                   "id", part_path + ".SpecialToken");
      if (!special.contains(name)) jf::refuse(part_path, "special token \"" + name + "\" is not in special_tokens");
      const std::string entry_path = jf::child_path(tokens_path, name);
      const nlohmann::json& ids = jf::required(jf::object_at(special[name], entry_path), "ids", entry_path);
      if (!ids.is_array()) jf::refuse(entry_path + ".ids", "expected an array");
      Part special_part{false, {}};
      for (std::size_t k = 0; k < ids.size(); ++k) special_part.ids.push_back(jf::id_at(ids[k], jf::index_path(entry_path + ".ids", k)));
      parts.push_back(std::move(special_part));
    } else {
      jf::refuse(part_path, "a template part must be {\"Sequence\": ...} or {\"SpecialToken\": ...}");
    }
  }
  templates_.push_back(std::move(parts));
}

std::vector<std::uint32_t> PostProcessor::with_special_tokens(const std::vector<std::uint32_t>& ids) const {
  std::vector<std::uint32_t> current = ids;
  for (const auto& parts : templates_) {
    std::vector<std::uint32_t> next;
    for (const Part& part : parts) {
      const auto& source = part.is_sequence ? current : part.ids;
      next.insert(next.end(), source.begin(), source.end());
    }
    current = std::move(next);
  }
  return current;
}

}  // namespace algenta::tokenizer
