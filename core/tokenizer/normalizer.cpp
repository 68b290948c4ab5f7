#include "tokenizer/normalizer.hpp"

#include "tokenizer/json_fields.hpp"

namespace algenta::tokenizer {

namespace jf = json_fields;

SplitPattern pattern_from_json(const nlohmann::json& value, std::string_view path) {
  jf::object_at(value, path);
  if (value.size() == 1 && value.contains("String")) {
    return SplitPattern::literal(jf::required_string(value, "String", path));
  }
  if (value.size() == 1 && value.contains("Regex")) {
    return SplitPattern::regex(jf::required_string(value, "Regex", path));
  }
  jf::refuse(path, "a pattern must be {\"String\": ...} or {\"Regex\": ...}");
}

Normalizer Normalizer::from_json(const nlohmann::json& section, std::string_view path) {
  Normalizer normalizer;
  if (!section.is_null()) normalizer.add(section, std::string(path));
  return normalizer;
}

void Normalizer::add(const nlohmann::json& component, const std::string& path) {
  const std::string type = jf::type_of(component, path);
  if (type == "Sequence") {
    const nlohmann::json& list = jf::required(component, "normalizers", path);
    if (!list.is_array()) jf::refuse(jf::child_path(path, "normalizers"), "expected an array");
    for (std::size_t i = 0; i < list.size(); ++i) add(list[i], jf::index_path(jf::child_path(path, "normalizers"), i));
  } else if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD") {
    const unicode::Form form = type == "NFC"    ? unicode::Form::nfc
                               : type == "NFD"  ? unicode::Form::nfd
                               : type == "NFKC" ? unicode::Form::nfkc
                                                : unicode::Form::nfkd;
    steps_.push_back(Step{Kind::unicode_form, form, {}, SplitPattern::literal("")});
  } else if (type == "Prepend") {
    steps_.push_back(Step{Kind::prepend, {}, jf::required_string(component, "prepend", path), SplitPattern::literal("")});
  } else if (type == "Replace") {
    steps_.push_back(Step{Kind::replace, {}, jf::required_string(component, "content", path),
                          pattern_from_json(jf::required(component, "pattern", path), jf::child_path(path, "pattern"))});
  } else {
    jf::refuse(path, "normalizer type \"" + type + "\" is not supported (supported: NFC, NFD, NFKC, NFKD, Prepend, Replace, Sequence)");
  }
}

std::string Normalizer::normalize(std::string text) const {
  for (const Step& step : steps_) {
    switch (step.kind) {
      case Kind::unicode_form:
        text = unicode::normalize(text, step.form);
        break;
      case Kind::prepend:
        if (!text.empty()) text.insert(0, step.text);
        break;
      case Kind::replace:
        text = replace_all(step.pattern, text, step.text);
        break;
    }
  }
  return text;
}

}  // namespace algenta::tokenizer
