#include "chat/value.hpp"

#include "chat/py_ops.hpp"

namespace algenta::chat {

const Value* DictData::find(const Value& key) const {
  for (const auto& [k, v] : items)
    if (py_equal(k, key)) return &v;
  return nullptr;
}

const Value* DictData::find(const std::string& key) const {
  for (const auto& [k, v] : items)
    if (k.kind == Kind::string && *k.s == key) return &v;
  return nullptr;
}

const Value* NamespaceData::find(const std::string& name) const {
  for (const auto& [k, v] : attrs)
    if (k == name) return &v;
  return nullptr;
}

void NamespaceData::assign(const std::string& name, Value value) {
  for (auto& [k, v] : attrs)
    if (k == name) {
      v = std::move(value);
      return;
    }
  attrs.emplace_back(name, std::move(value));
}

Value Value::undefined(std::string hint, bool unsafe) {
  Value v;
  v.kind = Kind::undefined;
  v.s = std::make_shared<const std::string>(std::move(hint));
  v.unsafe = unsafe;
  return v;
}
Value Value::none() {
  Value v;
  v.kind = Kind::none;
  return v;
}
Value Value::boolean(bool b) {
  Value v;
  v.kind = Kind::boolean;
  v.b = b;
  return v;
}
Value Value::integer(std::int64_t i) {
  Value v;
  v.kind = Kind::integer;
  v.i = i;
  return v;
}
Value Value::floating(double f) {
  Value v;
  v.kind = Kind::floating;
  v.f = f;
  return v;
}
Value Value::string(std::string s) {
  Value v;
  v.kind = Kind::string;
  v.s = std::make_shared<const std::string>(std::move(s));
  return v;
}
Value Value::make_list(ValueList items) {
  Value v;
  v.kind = Kind::list;
  v.list = std::make_shared<const ValueList>(std::move(items));
  return v;
}
Value Value::make_tuple(ValueList items) {
  Value v;
  v.kind = Kind::tuple;
  v.list = std::make_shared<const ValueList>(std::move(items));
  return v;
}
Value Value::make_dict(DictData data) {
  Value v;
  v.kind = Kind::dict;
  v.dict = std::make_shared<const DictData>(std::move(data));
  return v;
}
Value Value::make_native(std::string name, NativeFunction fn) {
  Value v;
  v.kind = Kind::native;
  v.native = std::make_shared<const NativeCallable>(NativeCallable{std::move(name), std::move(fn)});
  return v;
}

const std::string& Value::undefined_hint() const {
  static const std::string empty;
  return s ? *s : empty;
}

const char* type_name(const Value& v) {
  switch (v.kind) {
    case Kind::undefined: return "Undefined";
    case Kind::none: return "NoneType";
    case Kind::boolean: return "bool";
    case Kind::integer: return "int";
    case Kind::floating: return "float";
    case Kind::string: return "str";
    case Kind::list: return "list";
    case Kind::tuple: return "tuple";
    case Kind::dict: return "dict";
    case Kind::ns: return "Namespace";
    case Kind::macro: return "Macro";
    case Kind::native: return "builtin_function_or_method";
    case Kind::loop: return "LoopContext";
  }
  return "object";
}

}  // namespace algenta::chat
