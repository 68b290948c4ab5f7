#include <catch2/catch.hpp>

#include "chat/chat_template.hpp"

using namespace algenta::chat;
using json = nlohmann::ordered_json;

namespace {

TemplateError error_of(const std::string& src, const RenderLimits& limits) {
  try {
    RenderOptions options;
    options.limits = limits;
    ChatTemplate(src, limits).render(json::object(), options);
  } catch (const TemplateError& e) {
    return e;
  }
  FAIL("no error: " << src);
  throw;
}

}  // namespace

TEST_CASE("bounds: loop iterations over the whole rendering", "[chat][bounds]") {
  RenderLimits limits;
  limits.max_loop_iterations = 50;
  auto e = error_of("{% for i in range(10) %}{% for j in range(10) %}{% endfor %}{% endfor %}", limits);
  CHECK(e.kind() == ErrorKind::bound);
  CHECK(std::string(e.what()) == "line 1:28: for loops ran more than 50 iterations in one rendering");
}

TEST_CASE("bounds: output bytes", "[chat][bounds]") {
  RenderLimits limits;
  limits.max_output_bytes = 100;
  auto e = error_of("{% for i in range(1000) %}xxxxxxxxxx{% endfor %}", limits);
  CHECK(e.kind() == ErrorKind::bound);
  CHECK(std::string(e.what()).find("exceeds the output limit of 100 bytes") != std::string::npos);
}

TEST_CASE("bounds: macro recursion depth", "[chat][bounds]") {
  RenderLimits limits;
  limits.max_call_depth = 10;
  auto e = error_of("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", limits);
  CHECK(e.kind() == ErrorKind::bound);
  CHECK(std::string(e.what()).find("macro calls nested deeper than 10 (in 'f')") != std::string::npos);
}

TEST_CASE("bounds: nesting of the template text", "[chat][bounds]") {
  RenderLimits limits;
  limits.max_nesting = 20;
  auto e = error_of("{{ " + std::string(50, '(') + "1" + std::string(50, ')') + " }}", limits);
  CHECK(e.kind() == ErrorKind::bound);
  CHECK(std::string(e.what()).find("nesting deeper than 20 levels") != std::string::npos);
  auto blocks = error_of(std::string(30 * 10, ' ').replace(0, 0, [] {
    std::string s;
    for (int i = 0; i < 30; ++i) s += "{% if x %}";
    return s;
  }()), limits);
  CHECK(blocks.kind() == ErrorKind::bound);
}

TEST_CASE("bounds: sandbox range limit and repetition", "[chat][bounds]") {
  RenderLimits limits;
  auto e = error_of("{{ range(100001) | length }}", limits);
  CHECK(std::string(e.what()).find("MAX_RANGE (100000)") != std::string::npos);
  auto r = error_of("{{ 'x' * 100000000 }}", limits);
  CHECK(r.kind() == ErrorKind::bound);
}

TEST_CASE("bounds: values built in a loop may not outgrow the output limit", "[chat][bounds]") {
  RenderLimits limits;
  limits.max_output_bytes = 1000;
  auto e = error_of(
      "{% set ns = namespace(s='ab') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s | length }}",
      limits);
  CHECK(e.kind() == ErrorKind::bound);
  CHECK(std::string(e.what()).find("a str of 1024 bytes exceeds the output limit of 1000") != std::string::npos);
}
