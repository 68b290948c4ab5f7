#include <catch2/catch.hpp>

#include "chat/parser.hpp"

using namespace algenta::chat;

namespace {

ErrorKind parse_error_kind(const std::string& src, std::string* message = nullptr) {
  try {
    parse_template(src);
  } catch (const TemplateError& e) {
    if (message) *message = e.what();
    return e.kind();
  }
  FAIL("template parsed: " << src);
  return ErrorKind::runtime;
}

}  // namespace

TEST_CASE("parser: operator precedence follows jinja2", "[chat][parser]") {
  auto t = parse_template("{{ a or b and not c == d + e * f ** g | length }}");
  const Expr& e = *t.body[0]->expr;
  REQUIRE(e.kind == ExprKind::binary);
  CHECK(e.name == "or");
  const Expr& rhs = *e.items[1];
  CHECK(rhs.name == "and");
  CHECK(rhs.items[1]->kind == ExprKind::unary);  // not (c == ...)
  CHECK(rhs.items[1]->operand->kind == ExprKind::compare);
}

TEST_CASE("parser: filters bind tighter than unary minus's operand, tests after filters", "[chat][parser]") {
  auto t = parse_template("{{ -x | abs }}{{ x | length is odd }}");
  CHECK(t.body[0]->expr->kind == ExprKind::filter);
  CHECK(t.body[0]->expr->operand->kind == ExprKind::unary);
  CHECK(t.body[1]->expr->kind == ExprKind::test);
  CHECK(t.body[1]->expr->operand->kind == ExprKind::filter);
}

TEST_CASE("parser: statements of the subset", "[chat][parser]") {
  auto t = parse_template(
      "{% for k, v in d.items() if k %}{% break %}{% else %}{% endfor %}"
      "{% set ns.x = 1 %}{% set a, b = 1, 2 %}{% set blk %}x{% endset %}"
      "{% macro m(a, b=1) %}{{ a }}{% endmacro %}{% if a %}{% elif b %}{% else %}{% endif %}"
      "{% generation %}g{% endgeneration %}{% filter upper %}f{% endfilter %}");
  REQUIRE(t.body.size() == 8);
  CHECK(t.body[0]->kind == StmtKind::for_);
  CHECK(t.body[0]->target.names.size() == 2);
  CHECK(t.body[0]->loop_filter != nullptr);
  CHECK(t.body[1]->target.attribute == "x");
  CHECK(t.body[2]->target.tuple);
  CHECK(t.body[3]->kind == StmtKind::set_block);
  CHECK(t.body[4]->macro->defaults.size() == 1);
  CHECK(t.body[5]->branches.size() == 2);
}

TEST_CASE("parser: constructs outside the subset are refused by name and position", "[chat][parser]") {
  std::string message;
  CHECK(parse_error_kind("line\n  {% include 'x' %}", &message) == ErrorKind::unsupported);
  CHECK(message == "line 2:6: the 'include' tag is outside the supported subset");
  CHECK(parse_error_kind("{{ x | batch(2) }}", &message) == ErrorKind::unsupported);
  CHECK(message.find("'batch' filter") != std::string::npos);
  CHECK(parse_error_kind("{{ x is escaped }}") == ErrorKind::unsupported);
  CHECK(parse_error_kind("{% for x in y recursive %}{% endfor %}") == ErrorKind::unsupported);
  CHECK(parse_error_kind("{{ f(*args) }}") == ErrorKind::unsupported);
}

TEST_CASE("parser: syntax errors", "[chat][parser]") {
  CHECK(parse_error_kind("{% if x %}") == ErrorKind::syntax);
  CHECK(parse_error_kind("{% endfor %}") == ErrorKind::syntax);
  CHECK(parse_error_kind("{{ 1 + }}") == ErrorKind::syntax);
  CHECK(parse_error_kind("{{ x | nosuchfilter }}") == ErrorKind::syntax);
  CHECK(parse_error_kind("{% do x %}") == ErrorKind::syntax);
  CHECK(parse_error_kind("{% set true = 1 %}") == ErrorKind::syntax);
}
