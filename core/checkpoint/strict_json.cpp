#include "checkpoint/strict_json.hpp"

#include <set>
#include <vector>

#include "checkpoint/checkpoint_error.hpp"

namespace algenta::checkpoint {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxShownChars = 60;

class StrictnessGuard {
 public:
  StrictnessGuard(const std::string& file, std::size_t max_depth, bool top_level_keys_are_tensors)
      : file_(file), max_depth_(max_depth), top_level_keys_are_tensors_(top_level_keys_are_tensors) {}

  void on_event(json::parse_event_t event, const json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (open_keys_.size() >= max_depth_) {
          throw CheckpointError(file_, blamed_tensor(),
                                "JSON nests deeper than " + std::to_string(max_depth_) +
                                    " levels, more than the format ever has");
        }
        open_keys_.emplace_back();
        break;
      case json::parse_event_t::key: {
        const auto& key = parsed.get_ref<const std::string&>();
        if (open_keys_.size() == 1) top_level_key_ = key;
        if (!open_keys_.back().insert(key).second) throw repeated_key(key);
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        open_keys_.pop_back();
        break;
      case json::parse_event_t::value:
        break;
    }
  }

 private:
  CheckpointError repeated_key(const std::string& key) const {
    const bool at_top = open_keys_.size() == 1;
    if (at_top && top_level_keys_are_tensors_) {
      return CheckpointError(file_, key, "appears more than once; every tensor name must be unique");
    }
    const std::string where = at_top                        ? std::string("at the top level")
                              : top_level_keys_are_tensors_ ? std::string("in its entry")
                                                            : "inside " + shown_text(top_level_key_);
    return CheckpointError(file_, blamed_tensor(),
                           "key " + shown_text(key) + " appears more than once " + where +
                               "; every key must be unique");
  }

  std::string blamed_tensor() const {
    return top_level_keys_are_tensors_ && open_keys_.size() >= 2 ? top_level_key_ : std::string();
  }

  const std::string& file_;
  std::size_t max_depth_;
  bool top_level_keys_are_tensors_;
  std::string top_level_key_;
  std::vector<std::set<std::string>> open_keys_;  // one set per open container
};

// nlohmann's message minus its "[json.exception...] " tag, printable only.
std::string parse_error_text(const json::exception& error) {
  std::string text = error.what();
  if (const auto end_of_tag = text.find("] ");
      text.rfind("[json.exception", 0) == 0 && end_of_tag != std::string::npos) {
    text.erase(0, end_of_tag + 2);
  }
  for (char& c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f) c = '?';
  }
  return text;
}

}  // namespace

json parse_strict_json_object(std::string_view text, const std::string& file, std::size_t max_depth,
                              bool top_level_keys_are_tensors) {
  StrictnessGuard guard(file, max_depth, top_level_keys_are_tensors);
  json document;
  try {
    document = json::parse(text.begin(), text.end(),
                           [&guard](int /*depth*/, json::parse_event_t event, json& parsed) {
                             guard.on_event(event, parsed);
                             return true;
                           });
  } catch (const json::exception& error) {
    // parse_error for bad syntax, out_of_range for numbers beyond a double.
    throw CheckpointError(file, "", "is not valid JSON: " + parse_error_text(error));
  }
  if (!document.is_object()) {
    throw CheckpointError(file, "",
                          std::string("JSON must be an object at the top level, got ") + json_type_name(document));
  }
  return document;
}

const char* json_type_name(const json& value) {
  if (value.is_array()) return "an array";
  if (value.is_string()) return "a string";
  if (value.is_number()) return "a number";
  if (value.is_boolean()) return "a boolean";
  if (value.is_null()) return "null";
  if (value.is_binary()) return "binary";
  return "an object";
}

std::string shown_json(const json& value) {
  std::string text = value.dump(-1, ' ', true, json::error_handler_t::replace);
  if (text.size() > kMaxShownChars) text = text.substr(0, kMaxShownChars) + "...";
  return text;
}

}  // namespace algenta::checkpoint

