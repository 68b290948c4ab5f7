#include "verify/transformers_reference.hpp"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "files/bounded_read.hpp"
#include "files/file_caps.hpp"
#include "json/strict_json.hpp"

namespace algenta::host {
namespace {

using nlohmann::json;

// root > prompts > prompt > messages > message > content parts > part
constexpr std::size_t kMaxDepth = 7;

class Reader {
 public:
  explicit Reader(std::filesystem::path file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& why) const {
    throw ReferenceFileError("transformers reference " + file_.string() + ": " + where + " " + why);
  }

  const json& field(const json& object, const std::string& where, const char* name) const {
    const auto found = object.find(name);
    if (found == object.end()) fail(where + name, "is missing");
    return *found;
  }

  std::string text(const json& object, const std::string& where, const char* name) const {
    const json& value = field(object, where, name);
    if (!value.is_string()) {
      fail(where + name, std::string("is ") + strict_json::type_name(value) + ", not a string");
    }
    return value.get<std::string>();
  }

  std::vector<std::int32_t> token_ids(const json& object, const std::string& where,
                                      const char* name) const {
    const json& value = field(object, where, name);
    if (!value.is_array() || value.empty())
      fail(where + name, "is not a non-empty array of token ids");
    std::vector<std::int32_t> ids;
    for (std::size_t i = 0; i < value.size(); ++i) {
      const json& id = value[i];
      if (!id.is_number_integer() || id.get<std::int64_t>() < 0 ||
          id.get<std::int64_t>() > std::numeric_limits<std::int32_t>::max()) {
        fail(where + name + "[" + std::to_string(i) + "]",
             "is " + strict_json::shown(id) + ", not a token id in [0, 2^31)");
      }
      ids.push_back(static_cast<std::int32_t>(id.get<std::int64_t>()));
    }
    return ids;
  }

  std::vector<double> numbers(const json& object, const std::string& where,
                              const char* name) const {
    const json& value = field(object, where, name);
    if (!value.is_array()) fail(where + name, "is not an array of numbers");
    std::vector<double> out;
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (!value[i].is_number() || !std::isfinite(value[i].get<double>())) {
        fail(where + name + "[" + std::to_string(i) + "]",
             "is " + strict_json::shown(value[i]) + ", not a finite number");
      }
      out.push_back(value[i].get<double>());
    }
    return out;
  }

  ReferencePrompt prompt(const json& value, std::size_t index) const {
    const std::string where = "prompts[" + std::to_string(index) + "].";
    if (!value.is_object()) fail(where.substr(0, where.size() - 1), "is not an object");
    ReferencePrompt prompt;
    prompt.name = text(value, where, "name");
    const json& rendered = field(value, where, "rendered");
    if (!rendered.is_null() && !rendered.is_string()) {
      fail(where + "rendered", "is neither a string nor null");
    }
    if (rendered.is_string()) prompt.rendered = rendered.get<std::string>();
    prompt.ids = token_ids(value, where, "ids");
    prompt.greedy = token_ids(value, where, "greedy");
    prompt.margins = numbers(value, where, "margins");
    if (prompt.margins.size() != prompt.greedy.size()) {
      fail(where + "margins", "holds " + std::to_string(prompt.margins.size()) +
                                  " values; expected one per greedy token (" +
                                  std::to_string(prompt.greedy.size()) + ")");
    }
    if (value.contains("top_logits")) {
      prompt.top_logits = numbers(value, where, "top_logits");
      if (prompt.top_logits.size() != prompt.greedy.size()) {
        fail(where + "top_logits", "holds " + std::to_string(prompt.top_logits.size()) +
                                       " values; expected one per greedy token (" +
                                       std::to_string(prompt.greedy.size()) + ")");
      }
    }
    return prompt;
  }

 private:
  std::filesystem::path file_;
};

}  // namespace

TransformersReference load_transformers_reference(const std::filesystem::path& file) {
  const Reader reader(file);
  std::string bytes;
  try {
    bytes = files::read_bounded(file, files::kTransformersReferenceCap);
  } catch (const files::FileReadError& error) {
    reader.fail("the file", error.reason);
  }
  json root;
  try {
    root = strict_json::parse(bytes, kMaxDepth);
  } catch (const strict_json::StrictJsonError& e) {
    reader.fail("the file", std::string("is not valid JSON: ") + e.what());
  }
  if (!root.is_object()) reader.fail("the top level", "is not an object");

  TransformersReference reference;
  reference.checkpoint = reader.text(root, "", "checkpoint");
  reference.dtype = reader.text(root, "", "dtype");
  reference.device = reader.text(root, "", "device");
  reference.torch = reader.text(root, "", "torch");
  reference.transformers = reader.text(root, "", "transformers");
  const json& max_new = reader.field(root, "", "max_new_tokens");
  if (!max_new.is_number_integer() || max_new.get<std::int64_t>() < 1) {
    reader.fail("max_new_tokens", "is " + strict_json::shown(max_new) + ", not an integer >= 1");
  }
  reference.max_new_tokens = max_new.get<std::int64_t>();
  const json& prompts = reader.field(root, "", "prompts");
  if (!prompts.is_array() || prompts.empty()) reader.fail("prompts", "is not a non-empty array");
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    reference.prompts.push_back(reader.prompt(prompts[i], i));
  }
  return reference;
}

}  // namespace algenta::host
