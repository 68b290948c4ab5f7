#include <catch2/catch.hpp>

#include "chat/chat_template.hpp"

using namespace algenta::chat;
using json = nlohmann::ordered_json;

namespace {

std::string render(const std::string& src, const json& ctx = json::object()) {
  RenderOptions options;
  options.frozen_now = 1733224200;  // 2024-12-03 11:10:00 UTC
  return ChatTemplate(src).render(ctx, options);
}

TemplateError render_error(const std::string& src, const json& ctx = json::object()) {
  try {
    render(src, ctx);
  } catch (const TemplateError& e) {
    return e;
  }
  FAIL("rendered without error: " << src);
  throw;
}

}  // namespace

TEST_CASE("render: messages in a ChatML loop", "[chat][render]") {
  json ctx = {{"messages", json::array({{{"role", "user"}, {"content", "hi"}}, {{"role", "assistant"}, {"content", "yo"}}})},
              {"add_generation_prompt", true}};
  std::string tmpl =
      "{%- for m in messages %}\n"
      "    {{- '<|im_start|>' + m.role + '\\n' + m.content + '<|im_end|>\\n' }}\n"
      "{%- endfor %}\n"
      "{%- if add_generation_prompt %}\n"
      "    {{- '<|im_start|>assistant\\n' }}\n"
      "{%- endif %}\n";
  CHECK(render(tmpl, ctx) == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nyo<|im_end|>\n<|im_start|>assistant\n");
}

TEST_CASE("render: loop bodies are scopes, if blocks are not; namespace carries state out", "[chat][render]") {
  CHECK(render("{% set x = 0 %}{% for i in [1, 2] %}{{ x }}{% set x = i %}{{ x }}{% endfor %}{{ x }}") == "01020");
  CHECK(render("{% set x = 0 %}{% if true %}{% set x = 5 %}{% endif %}{{ x }}") == "5");
  CHECK(render("{% set ns = namespace(n=0) %}{% for i in [1, 2, 3] %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}") == "6");
}

TEST_CASE("render: Undefined prints empty, fails when used", "[chat][render]") {
  CHECK(render("[{{ nothing }}][{{ d.missing }}]", {{"d", json::object()}}) == "[][]");
  auto e = render_error("{{ nothing.attr }}");
  CHECK(e.kind() == ErrorKind::runtime);
  CHECK(std::string(e.what()).find("'nothing' is undefined") != std::string::npos);
  CHECK(render_error("{{ nothing + 1 }}").kind() == ErrorKind::runtime);
}

TEST_CASE("render: raise_exception carries the template's own message", "[chat][render]") {
  auto e = render_error("{{ raise_exception('Roles must alternate ' ~ 3) }}");
  CHECK(e.kind() == ErrorKind::raised);
  CHECK(std::string(e.what()) == "Roles must alternate 3");
}

TEST_CASE("render: strftime_now reads the frozen clock", "[chat][render]") {
  CHECK(render("{{ strftime_now('%d %b %Y') }}") == "03 Dec 2024");
}

TEST_CASE("render: tojson keeps key order and non-ASCII text", "[chat][render]") {
  json ctx = json::parse(R"({"t": {"z": 1, "a": [true, null, 1.5, "\u00e9"]}})");
  CHECK(render("{{ t | tojson }}", ctx) == "{\"z\": 1, \"a\": [true, null, 1.5, \"\xc3\xa9\"]}");
  CHECK(render("{{ t.a | tojson(indent=2) }}", ctx) == "[\n  true,\n  null,\n  1.5,\n  \"\xc3\xa9\"\n]");
}

TEST_CASE("render: the sandbox refuses mutation", "[chat][render]") {
  auto e = render_error("{{ l.append(1) }}", {{"l", json::array()}});
  CHECK(std::string(e.what()).find("SecurityError: access to attribute 'append' of 'list' object is unsafe.") != std::string::npos);
}

TEST_CASE("render: list content prints as Python repr", "[chat][render]") {
  json ctx = json::parse(R"({"c": [{"type": "text", "text": "it's"}]})");
  CHECK(render("{{ c }}", ctx) == "[{'type': 'text', 'text': \"it's\"}]");
}

TEST_CASE("render: a value that holds itself prints as Python's repr guard prints it",
          "[chat][render]") {
  // Expected strings are jinja2's (ImmutableSandboxedEnvironment, as
  // transformers sets it up). A fuzzer found the unguarded repr recursing
  // until the stack ran out.
  CHECK(render("{% set ns = namespace(s=\"ab\") %}{% set ns.s = ns, \"x\" %}{{ ns.s }}") ==
        "(<Namespace {'s': (...)}>, 'x')");
  CHECK(render("{% set ns = namespace(s=\"ab\") %}{% set ns.s = ns, \"x\" %}{{ ns }}") ==
        "<Namespace {'s': (<Namespace {...}>, 'x')}>");
  CHECK(render("{% set ns = namespace(s=\"ab\") %}{% set ns.s = [ns] %}{{ ns.s == ns.s }}|"
               "{{ ns.s | length }}") == "True|1");
}
