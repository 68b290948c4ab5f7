#pragma once
// Python values as a chat template sees them: None, bool, int, float, str,
// list, tuple, dict (insertion ordered), jinja2's Undefined, namespace(),
// macros and bound methods. Containers are shared and never mutated after
// construction (the sandbox is immutable); only a namespace's attributes change.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace algenta::chat {

struct Value;
struct MacroDef;
struct LoopState;
class Renderer;

using ValueList = std::vector<Value>;

struct DictData {
  std::vector<std::pair<Value, Value>> items;
  const Value* find(const Value& key) const;
  const Value* find(const std::string& key) const;
};

struct NamespaceData {
  std::vector<std::pair<std::string, Value>> attrs;
  const Value* find(const std::string& name) const;
  void assign(const std::string& name, Value value);
};

struct CallArgs;
// A callable the renderer provides (global function or a method bound to its receiver).
using NativeFunction = std::function<Value(Renderer&, const CallArgs&)>;

struct NativeCallable {
  std::string name;  // as Python would name it, e.g. "str.split" or "range"
  NativeFunction call;
};

struct MacroValue {
  std::shared_ptr<const MacroDef> def;
  std::shared_ptr<struct Frame> closure;
};

enum class Kind { undefined, none, boolean, integer, floating, string, list, tuple, dict, ns, macro, native, loop };

struct Value {
  Kind kind = Kind::undefined;
  bool b = false;
  std::int64_t i = 0;
  double f = 0;
  std::shared_ptr<const std::string> s;        // string; for undefined: the hint
  std::shared_ptr<const ValueList> list;       // list or tuple
  std::shared_ptr<const DictData> dict;
  std::shared_ptr<NamespaceData> ns;
  std::shared_ptr<const MacroValue> macro;
  std::shared_ptr<const NativeCallable> native;
  std::shared_ptr<const LoopState> loop;
  bool unsafe = false;  // undefined from a sandbox refusal: using it is a security error
  bool markup = false;  // a string from |safe or |escape (Markup): `+` would escape the other side
  // A Python generator, reverse iterator or dict view standing in for a list:
  // printing it or dumping it as JSON is refused (Python prints an object address).
  bool opaque = false;
  // Set for generators and iterators: how many items were taken already
  // (each is iterable once), no len(), always true.
  std::shared_ptr<std::size_t> consumed;

  static Value undefined(std::string hint = {}, bool unsafe = false);
  static Value none();
  static Value boolean(bool v);
  static Value integer(std::int64_t v);
  static Value floating(double v);
  static Value string(std::string v);
  static Value make_list(ValueList items);
  static Value make_tuple(ValueList items);
  static Value make_dict(DictData data);
  static Value make_native(std::string name, NativeFunction fn);

  bool is_undefined() const { return kind == Kind::undefined; }
  bool is_none() const { return kind == Kind::none; }
  bool is_string() const { return kind == Kind::string; }
  bool is_sequence_like() const { return kind == Kind::list || kind == Kind::tuple; }
  bool is_number() const { return kind == Kind::integer || kind == Kind::floating || kind == Kind::boolean; }
  const std::string& str() const { return *s; }
  const std::string& undefined_hint() const;
};

// Python's name for the value's type, as error messages print it.
const char* type_name(const Value& v);

}  // namespace algenta::chat
