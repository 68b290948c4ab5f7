#include "facts/tensor_check.hpp"

#include <set>

#include "facts/expected_tensors.hpp"

namespace algenta::facts {
namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

Refusal tensor_refusal(const std::string& tensor, const std::string& value,
                       const std::string& allowed, const std::string& message) {
  return {"tensor " + tensor, value, allowed, message};
}

}  // namespace

bool is_supported_weight_dtype(const std::string& dtype) {
  return dtype == "BF16" || dtype == "F16" || dtype == "F32";
}

std::string canonical_tensor_name(const ModelFacts& facts, const std::string& stored) {
  if (!facts.from_text_config) return stored;
  // transformers < 4.52 and >= 4.52 spell the multimodal prefix differently.
  static const std::pair<std::string, std::string> kPrefixes[] = {
      {"language_model.model.", "model."},
      {"model.language_model.", "model."},
      {"language_model.lm_head.", "lm_head."},
  };
  for (const auto& [prefix, replacement] : kPrefixes) {
    if (starts_with(stored, prefix)) return replacement + stored.substr(prefix.size());
  }
  if (stored == "lm_head.weight") return stored;
  return "";  // vision tower, projector: not part of the text model
}

TensorCheck check_tensors(const ModelFacts& facts, const std::vector<ObservedTensor>& observed) {
  TensorCheck check;
  std::map<std::string, const ObservedTensor*> by_canonical;
  for (const ObservedTensor& t : observed) {
    const std::string canonical = canonical_tensor_name(facts, t.name);
    if (canonical.empty()) {
      check.ignored.push_back(t.name + " (outside the text model)");
      continue;
    }
    if (by_canonical.count(canonical) != 0) {
      check.refusals.push_back(tensor_refusal(canonical, "stored twice", "once",
                                              "tensor " + canonical + " is stored twice (" +
                                                  by_canonical[canonical]->name + " and " + t.name + ")"));
      continue;
    }
    by_canonical[canonical] = &t;
  }

  std::set<std::string> expected_names;
  for (const ExpectedTensor& e : expected_tensors(facts)) {
    expected_names.insert(e.name);
    const auto found = by_canonical.find(e.name);
    if (found == by_canonical.end()) {
      check.refusals.push_back(tensor_refusal(e.name, "missing", shape_text(e.shape),
                                              "tensor " + e.name + " is missing (expected shape " +
                                                  shape_text(e.shape) + ")"));
      continue;
    }
    const ObservedTensor& t = *found->second;
    if (t.shape != e.shape) {
      check.refusals.push_back(tensor_refusal(
          e.name, shape_text(t.shape), shape_text(e.shape),
          "tensor " + t.name + " in " + t.file + " has shape " + shape_text(t.shape) +
              "; the config's facts require " + shape_text(e.shape)));
    }
    if (!is_supported_weight_dtype(t.dtype)) {
      check.refusals.push_back(tensor_refusal(e.name, t.dtype, "BF16, F16 or F32",
                                              "tensor " + t.name + " in " + t.file + " has dtype " +
                                                  t.dtype + "; supported: BF16, F16, F32"));
    }
    check.stored_name[e.name] = t.name;
  }

  for (const auto& [canonical, t] : by_canonical) {
    if (expected_names.count(canonical) != 0) continue;
    if (canonical == "lm_head.weight" && facts.tie_word_embeddings) {
      check.ignored.push_back(t->name + " (tied to model.embed_tokens.weight)");
      continue;
    }
    check.refusals.push_back(tensor_refusal(canonical, "unexpected", "not present",
                                            "tensor " + t->name + " in " + t->file +
                                                " is not part of a " +
                                                std::string(family_name(facts.family)) +
                                                " model with these facts"));
  }
  return check;
}

}  // namespace algenta::facts
