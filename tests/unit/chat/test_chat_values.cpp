#include <catch2/catch.hpp>

#include <cmath>

#include "chat/json_dump.hpp"
#include "chat/py_ops.hpp"
#include "chat/template_error.hpp"

using namespace algenta::chat;

TEST_CASE("values: float repr matches Python", "[chat][values]") {
  CHECK(float_repr(1.0) == "1.0");
  CHECK(float_repr(0.1 + 0.2) == "0.30000000000000004");
  CHECK(float_repr(1e16) == "1e+16");
  CHECK(float_repr(1e15) == "1000000000000000.0");
  CHECK(float_repr(1e-5) == "1e-05");
  CHECK(float_repr(0.0001) == "0.0001");
  CHECK(float_repr(-0.0) == "-0.0");
  CHECK(float_repr(1.5e300) == "1.5e+300");
  CHECK(float_repr(123456789.0) == "123456789.0");
  CHECK(float_repr(INFINITY) == "inf");
  CHECK(float_repr(NAN) == "nan");
}

TEST_CASE("values: str and repr of containers", "[chat][values]") {
  Value l = Value::make_list({Value::string("it's"), Value::none(), Value::boolean(true), Value::floating(2.0),
                              Value::make_tuple({Value::integer(1)})});
  CHECK(py_str(l) == "[\"it's\", None, True, 2.0, (1,)]");
  DictData d;
  d.items.emplace_back(Value::string("a\n"), Value::string("\xc3\xa9\x7f"));
  CHECK(py_str(Value::make_dict(d)) == "{'a\\n': '\xc3\xa9\\x7f'}");
  CHECK(py_repr(Value::string("\xc2\xa0")) == "'\\xa0'");  // no-break space is not printable
}

TEST_CASE("values: Python arithmetic", "[chat][values]") {
  CHECK(py_arith("//", Value::integer(-7), Value::integer(2)).i == -4);
  CHECK(py_arith("%", Value::integer(-7), Value::integer(3)).i == 2);
  CHECK(py_arith("%", Value::integer(7), Value::integer(-3)).i == -2);
  CHECK(py_arith("/", Value::integer(1), Value::integer(2)).f == 0.5);
  CHECK(py_arith("%", Value::floating(-5.5), Value::integer(2)).f == 0.5);
  CHECK(py_arith("**", Value::integer(2), Value::integer(-1)).f == 0.5);
  CHECK(py_arith("+", Value::boolean(true), Value::integer(1)).i == 2);
  CHECK_THROWS_AS(py_arith("+", Value::string("a"), Value::integer(1)), TemplateError);
  CHECK_THROWS_AS(py_arith("//", Value::integer(1), Value::integer(0)), TemplateError);
  CHECK_THROWS_AS(py_arith("+", Value::integer(INT64_MAX), Value::integer(1)), TemplateError);
}

TEST_CASE("values: equality and ordering", "[chat][values]") {
  CHECK(py_equal(Value::integer(1), Value::floating(1.0)));
  CHECK(py_equal(Value::boolean(true), Value::integer(1)));
  CHECK_FALSE(py_equal(Value::make_list({Value::integer(1)}), Value::make_tuple({Value::integer(1)})));
  CHECK(py_equal(Value::undefined(), Value::undefined()));
  CHECK_FALSE(py_equal(Value::undefined(), Value::none()));
  CHECK(py_compare("lt", Value::string("B"), Value::string("a")));
  CHECK_THROWS_AS(py_compare("lt", Value::none(), Value::integer(1)), TemplateError);
}

TEST_CASE("values: truthiness and len", "[chat][values]") {
  CHECK_FALSE(truthy(Value::undefined()));
  CHECK_FALSE(truthy(Value::string("")));
  CHECK(truthy(Value::string(" ")));
  CHECK_FALSE(truthy(Value::floating(0.0)));
  CHECK(py_len(Value::string("h\xc3\xa9")) == 2);
  CHECK(py_len(Value::undefined()) == 0);
}

TEST_CASE("values: json.dumps as transformers' tojson calls it", "[chat][values]") {
  DictData d;
  d.items.emplace_back(Value::string("k"), Value::make_list({Value::integer(1), Value::floating(0.5), Value::none()}));
  d.items.emplace_back(Value::string("s"), Value::string("\xc3\xa9\"\n\x01"));
  Value v = Value::make_dict(d);
  CHECK(json_dumps(v, {}, 64) == "{\"k\": [1, 0.5, null], \"s\": \"\xc3\xa9\\\"\\n\\u0001\"}");
  JsonDumpOptions indented;
  indented.indent = "  ";
  CHECK(json_dumps(v, indented, 64) == "{\n  \"k\": [\n    1,\n    0.5,\n    null\n  ],\n  \"s\": \"\xc3\xa9\\\"\\n\\u0001\"\n}");
  JsonDumpOptions ascii;
  ascii.ensure_ascii = true;
  CHECK(json_dumps(Value::string("\xc3\xa9\xf0\x9f\x99\x82"), ascii, 64) == "\"\\u00e9\\ud83d\\ude42\"");
  CHECK_THROWS_AS(json_dumps(Value::undefined(), {}, 64), TemplateError);
}
