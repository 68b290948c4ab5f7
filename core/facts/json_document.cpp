#include "facts/json_document.hpp"

#include <set>
#include <vector>

#include "facts/facts_error.hpp"

namespace algenta::facts {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxShownChars = 60;
// config.json is at most 3 containers deep (text_config.rope_scaling); the
// cap only bounds what hostile input can cost.
constexpr std::size_t kMaxDepth = 32;

// nlohmann keeps the last of two equal keys without a word; a config that
// says hidden_size twice is ambiguous, so it is refused with the key's name.
class DuplicateKeyGuard {
 public:
  explicit DuplicateKeyGuard(const std::string& file) : file_(file) {}

  bool on_event(json::parse_event_t event, const json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (keys_.size() >= kMaxDepth) {
          throw FactsError(file_, "document",
                           "nests deeper than " + std::to_string(kMaxDepth) + " levels");
        }
        keys_.emplace_back();
        break;
      case json::parse_event_t::key: {
        const auto& key = parsed.get_ref<const std::string&>();
        if (!keys_.back().insert(key).second) {
          throw FactsError(file_, key, "key appears more than once in one object");
        }
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        keys_.pop_back();
        break;
      case json::parse_event_t::value:
        break;
    }
    return true;
  }

 private:
  const std::string& file_;
  std::vector<std::set<std::string>> keys_;  // one set per open container
};

// nlohmann's message minus its "[json.exception...] " tag, printable only.
std::string parse_error_text(const json::parse_error& error) {
  std::string text = error.what();
  if (const auto end_of_tag = text.find("] "); text.rfind("[json.exception", 0) == 0 &&
                                               end_of_tag != std::string::npos) {
    text.erase(0, end_of_tag + 2);
  }
  for (char& c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f) c = '?';
  }
  return text;
}

}  // namespace

const char* json_type_name(const json& value) {
  if (value.is_array()) return "an array";
  if (value.is_string()) return "a string";
  if (value.is_number()) return "a number";
  if (value.is_boolean()) return "a boolean";
  if (value.is_null()) return "null";
  return "an object";
}

std::string shown_value(const json& value) {
  std::string text = value.dump(-1, ' ', true, json::error_handler_t::replace);
  if (text.size() > kMaxShownChars) text = text.substr(0, kMaxShownChars) + "...";
  return text;
}

json read_json_object(std::string_view text, const std::string& file) {
  if (text.size() > kMaxConfigBytes) {
    throw FactsError(file, "document",
                     "is " + std::to_string(text.size()) + " bytes; a config.json may be at most " +
                         std::to_string(kMaxConfigBytes));
  }
  DuplicateKeyGuard guard(file);
  json document;
  try {
    document = json::parse(
        text.begin(), text.end(),
        [&guard](int /*depth*/, json::parse_event_t event, json& parsed) {
          return guard.on_event(event, parsed);
        });
  } catch (const json::parse_error& error) {
    throw FactsError(file, "document", "is not valid JSON: " + parse_error_text(error));
  } catch (const json::exception& error) {
    // e.g. out_of_range for a number beyond a double (1e400)
    throw FactsError(file, "document", std::string("cannot be read as JSON: ") + error.what());
  }
  if (!document.is_object()) {
    throw FactsError(file, "document",
                     std::string("top level must be a JSON object, got ") + json_type_name(document));
  }
  return document;
}

}  // namespace algenta::facts
