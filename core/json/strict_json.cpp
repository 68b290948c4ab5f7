#include "json/strict_json.hpp"

#include <set>

namespace algenta::strict_json {
namespace {

using nlohmann::json;
using Kind = StrictJsonError::Kind;

// Follows the parser through nested containers so a problem can name where.
class Guard {
 public:
  explicit Guard(std::size_t max_depth) : max_depth_(max_depth) {}

  void on_event(json::parse_event_t event, const json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (frames_.size() >= max_depth_) {
          throw StrictJsonError(Kind::too_deep, path(), "",
                                "nests deeper than " + std::to_string(max_depth_) + " levels");
        }
        frames_.push_back(Frame{event == json::parse_event_t::array_start, {}, {}, 0});
        break;
      case json::parse_event_t::key: {
        Frame& frame = frames_.back();
        frame.key = parsed.get<std::string>();
        if (!frame.keys.insert(frame.key).second) {
          throw StrictJsonError(Kind::duplicate_key, path(), frame.key,
                                "key appears more than once in one object");
        }
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames_.pop_back();
        element_done();
        break;
      case json::parse_event_t::value:
        element_done();
        break;
    }
  }

 private:
  struct Frame {
    bool is_array;
    std::set<std::string> keys;
    std::string key;    // latest key of an object
    std::size_t index;  // next element of an array
  };

  void element_done() {
    if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
  }

  // The containers enclosing the innermost open one.
  std::vector<std::string> path() const {
    std::vector<std::string> out;
    for (std::size_t i = 1; i < frames_.size(); ++i) {
      const Frame& parent = frames_[i - 1];
      out.push_back(parent.is_array ? "[" + std::to_string(parent.index) + "]" : parent.key);
    }
    return out;
  }

  std::size_t max_depth_;
  std::vector<Frame> frames_;
};

// nlohmann's message minus its "[json.exception...] " tag, printable only.
std::string cleaned_message(const json::exception& error) {
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

// nlohmann skips a UTF-8 byte-order mark before the value and takes a NUL
// byte for the end of the input: bytes it never reads would ride along with
// the text (and under a signature). Raw NUL is never valid JSON, and a mark
// is not part of the text, so both are refused wherever they are.
void refuse_bytes_outside_the_text(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) {
    throw StrictJsonError(Kind::syntax, {}, "",
                          "a UTF-8 byte-order mark (EF BB BF) at byte 0; the text must start "
                          "with the JSON value");
  }
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    throw StrictJsonError(Kind::syntax, {}, "",
                          "a NUL byte at byte offset " + std::to_string(nul) +
                              " (JSON text never holds a raw NUL)");
  }
}

}  // namespace

json parse(std::string_view text, std::size_t max_depth) {
  refuse_bytes_outside_the_text(text);
  Guard guard(max_depth);
  try {
    // Strict mode: trailing data after the top-level value is an error.
    return json::parse(text.begin(), text.end(),
                       [&guard](int /*depth*/, json::parse_event_t event, json& parsed) {
                         guard.on_event(event, parsed);
                         return true;
                       });
  } catch (const json::exception& error) {
    // parse_error for bad syntax, out_of_range for numbers beyond a double.
    throw StrictJsonError(Kind::syntax, {}, "", cleaned_message(error));
  }
}

std::string dotted_path(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& part : path) {
    if (!part.empty() && part.front() == '[') {
      out += part;
    } else {
      out += (out.empty() ? "" : ".") + part;
    }
  }
  return out;
}

const char* type_name(const json& value) {
  if (value.is_array()) return "an array";
  if (value.is_string()) return "a string";
  if (value.is_number()) return "a number";
  if (value.is_boolean()) return "a boolean";
  if (value.is_null()) return "null";
  if (value.is_binary()) return "binary";
  return "an object";
}

std::string shown(const json& value, std::size_t max_chars) {
  std::string text = value.dump(-1, ' ', true, json::error_handler_t::replace);
  if (text.size() > max_chars) text = text.substr(0, max_chars) + "...";
  return text;
}

}  // namespace algenta::strict_json
