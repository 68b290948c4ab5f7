#include "chat/json_value.hpp"

#include <limits>

#include "chat/template_error.hpp"

namespace algenta::chat {

Value value_from_json(const nlohmann::ordered_json& j, std::size_t max_depth) {
  if (max_depth == 0) fail(ErrorKind::bound, "context JSON nested too deeply");
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::null: return Value::none();
    case nlohmann::ordered_json::value_t::boolean: return Value::boolean(j.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer: return Value::integer(j.get<std::int64_t>());
    case nlohmann::ordered_json::value_t::number_unsigned: {
      auto u = j.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        fail(ErrorKind::unsupported, "context integer " + std::to_string(u) + " outside the 64-bit signed range");
      return Value::integer(static_cast<std::int64_t>(u));
    }
    case nlohmann::ordered_json::value_t::number_float: return Value::floating(j.get<double>());
    case nlohmann::ordered_json::value_t::string: return Value::string(j.get<std::string>());
    case nlohmann::ordered_json::value_t::array: {
      ValueList items;
      items.reserve(j.size());
      for (const auto& e : j) items.push_back(value_from_json(e, max_depth - 1));
      return Value::make_list(std::move(items));
    }
    case nlohmann::ordered_json::value_t::object: {
      DictData d;
      for (auto it = j.begin(); it != j.end(); ++it)
        d.items.emplace_back(Value::string(it.key()), value_from_json(it.value(), max_depth - 1));
      return Value::make_dict(std::move(d));
    }
    default: fail(ErrorKind::unsupported, "binary or discarded JSON value in the context");
  }
}

}  // namespace algenta::chat
