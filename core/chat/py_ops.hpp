#pragma once
// Python semantics of the operations templates apply to values: str(),
// repr(), truthiness, ==, ordering, arithmetic, len(), iteration and `in`.
// Errors are TemplateError(runtime) with Python's message where it matters.
#include <string>

#include "chat/value.hpp"

namespace algenta::chat {

std::string float_repr(double v);   // Python repr(float)
std::string py_str(const Value& v);   // str(v); Undefined -> ""
std::string py_repr(const Value& v);  // repr(v)
bool truthy(const Value& v);
bool py_equal(const Value& a, const Value& b);
// Python's <, <=, >, >= ("lt", "le", "gt", "ge"); TypeError when unorderable.
bool py_compare(const std::string& op, const Value& a, const Value& b);
int py_order(const Value& a, const Value& b);  // -1/0/1 for sort(); TypeError when unorderable

// Binary arithmetic: "+", "-", "*", "/", "//", "%", "**".
Value py_arith(const std::string& op, const Value& a, const Value& b);
Value py_negate(const Value& v, bool negative);  // unary - and +

std::size_t py_len(const Value& v);
ValueList py_iterate(const Value& v);  // list(v): str -> characters, dict -> keys
bool py_contains(const Value& container, const Value& item);  // item in container

// Undefined used where a value is needed: raises jinja2's UndefinedError.
[[noreturn]] void fail_undefined(const Value& v);
void require_defined(const Value& v);

}  // namespace algenta::chat
