#include "openai/field_reader.hpp"

#include <cmath>
#include <sstream>

#include "json/strict_json.hpp"

namespace algenta::openai {
namespace {

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

FieldReader::FieldReader(const nlohmann::json& object, std::string prefix)
    : object_(object), prefix_(std::move(prefix)) {}

void FieldReader::fail(const std::string& key, const std::string& message) const {
  throw ApiError(ErrorKind::invalid_request, message, name(key));
}

void FieldReader::wrong_type(const std::string& key, const char* expected,
                             const nlohmann::json& got) const {
  fail(key, "'" + name(key) + "' must be " + expected + ", got " + strict_json::type_name(got) +
                " " + strict_json::shown(got));
}

const nlohmann::json* FieldReader::get(const std::string& key) {
  read_.insert(key);
  const auto it = object_.find(key);
  if (it == object_.end() || it->is_null()) return nullptr;
  return &*it;
}

std::optional<std::string> FieldReader::string(const std::string& key) {
  const nlohmann::json* v = get(key);
  if (!v) return std::nullopt;
  if (!v->is_string()) wrong_type(key, "a string", *v);
  return v->get<std::string>();
}

std::optional<bool> FieldReader::boolean(const std::string& key) {
  const nlohmann::json* v = get(key);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) wrong_type(key, "a boolean", *v);
  return v->get<bool>();
}

std::optional<double> FieldReader::number(const std::string& key, double min, double max,
                                          bool min_exclusive) {
  const nlohmann::json* v = get(key);
  if (!v) return std::nullopt;
  if (!v->is_number()) wrong_type(key, "a number", *v);
  const double d = v->get<double>();
  if (!std::isfinite(d) || d > max || d < min || (min_exclusive && d == min)) {
    fail(key, "'" + name(key) + "' must be " + (min_exclusive ? "above " : "from ") +
                  number_text(min) + (min_exclusive ? " and at most " : " to ") + number_text(max) +
                  ", got " + strict_json::shown(*v));
  }
  return d;
}

std::optional<std::int64_t> FieldReader::integer(const std::string& key, std::int64_t min,
                                                 std::int64_t max) {
  const nlohmann::json* v = get(key);
  if (!v) return std::nullopt;
  if (!v->is_number_integer()) wrong_type(key, "an integer", *v);
  // Unsigned values past INT64_MAX are out of range, not negative.
  const bool too_big = v->is_number_unsigned() &&
                       v->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX);
  const std::int64_t i = too_big ? INT64_MAX : v->get<std::int64_t>();
  if (too_big || i < min || i > max) {
    fail(key, "'" + name(key) + "' must be from " + std::to_string(min) + " to " +
                  std::to_string(max) + ", got " + strict_json::shown(*v));
  }
  return i;
}

void FieldReader::refuse_unless(const std::string& key, const nlohmann::json& harmless,
                                const std::string& why) {
  const nlohmann::json* v = get(key);
  if (!v || *v == harmless) return;
  fail(key, "'" + name(key) + "' is not supported by this server (" + why + "); got " +
                strict_json::shown(*v));
}

void FieldReader::refuse_unless_empty(const std::string& key, const std::string& why) {
  const nlohmann::json* v = get(key);
  if (!v || ((v->is_array() || v->is_object()) && v->empty())) return;
  fail(key, "'" + name(key) + "' is not supported by this server (" + why + "); got " +
                strict_json::shown(*v));
}

void FieldReader::refuse_unknown() const {
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    if (!read_.count(it.key())) {
      fail(it.key(), "unknown field '" + name(it.key()) +
                         "': this server refuses fields it does not know rather than ignore them");
    }
  }
}

}  // namespace algenta::openai
