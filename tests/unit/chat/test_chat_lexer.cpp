#include <catch2/catch.hpp>

#include "chat/lexer.hpp"

using namespace algenta::chat;

namespace {

std::string data_of(const std::vector<Token>& toks) {
  std::string out;
  for (const auto& t : toks)
    if (t.type == Tok::data) out += "[" + t.text + "]";
  return out;
}

}  // namespace

TEST_CASE("lexer: trim_blocks eats the newline after a block tag, not after an output tag", "[chat][lexer]") {
  CHECK(data_of(tokenize("{% if x %}\nA{% endif %}\nB")) == "[A][B]");
  CHECK(data_of(tokenize("{{ x }}\nA")) == "[\nA]");
}

TEST_CASE("lexer: lstrip_blocks strips a block tag's indentation only at line start", "[chat][lexer]") {
  CHECK(data_of(tokenize("a\n    {% if x %}b{% endif %}")) == "[a\n][b]");
  CHECK(data_of(tokenize("a  {% if x %}b{% endif %}")) == "[a  ][b]");
  CHECK(data_of(tokenize("    {% if x %}b{% endif %}")) == "[b]");
  CHECK(data_of(tokenize("a\n    {{ x }}")) == "[a\n    ]");
  CHECK(data_of(tokenize("a\n    {%+ if x %}b{% endif %}")) == "[a\n    ][b]");
}

TEST_CASE("lexer: minus signs strip all whitespace on their side", "[chat][lexer]") {
  CHECK(data_of(tokenize("a \n\t {{- x -}} \n b")) == "[a][b]");
  CHECK(data_of(tokenize("a \n {#- c -#} \n b")) == "[a][b]");
}

TEST_CASE("lexer: newlines are normalised and one trailing newline dropped", "[chat][lexer]") {
  CHECK(data_of(tokenize("a\r\nb\rc\n")) == "[a\nb\nc]");
  CHECK(data_of(tokenize("a\n\n")) == "[a\n]");
}

TEST_CASE("lexer: raw blocks keep tags verbatim", "[chat][lexer]") {
  CHECK(data_of(tokenize("{% raw %}{{ x }}{% endraw %}")) == "[{{ x }}]");
}

TEST_CASE("lexer: string literals decode Python escapes", "[chat][lexer]") {
  auto toks = tokenize(R"({{ 'a\n\t\x41\u00e9\101\q' }})");
  REQUIRE(toks[1].type == Tok::string);
  CHECK(toks[1].text == "a\n\tA\xc3\xa9" "A\\q");
}

TEST_CASE("lexer: numbers, names and operators", "[chat][lexer]") {
  auto toks = tokenize("{{ 1_000 + 2.5e3 // x.0 ** y }}");
  REQUIRE(toks.size() == 12);
  CHECK(toks[1].type == Tok::integer);
  CHECK(toks[1].integer == 1000);
  CHECK(toks[3].type == Tok::floating);
  CHECK(toks[3].floating == 2500.0);
  CHECK(toks[4].text == "//");
  CHECK(toks[6].text == ".");
  CHECK(toks[7].type == Tok::integer);  // x.0 is an item lookup, not a float
  CHECK(toks[8].text == "**");
}

TEST_CASE("lexer: a tag end inside brackets is not the end of the tag", "[chat][lexer]") {
  auto toks = tokenize("{{ {'a': {'b': 1}} }}");
  CHECK(toks.back().type == Tok::eof);
  CHECK(toks[toks.size() - 2].type == Tok::var_end);
}

TEST_CASE("lexer: errors name the line and column", "[chat][lexer]") {
  try {
    tokenize("ok\n  {{ 'unterminated }}");
    FAIL("no error");
  } catch (const TemplateError& e) {
    CHECK(e.kind() == ErrorKind::syntax);
    CHECK(e.where().line == 2);
    CHECK(std::string(e.what()).find("line 2:") == 0);
  }
  CHECK_THROWS_AS(tokenize("{# never closed"), TemplateError);
  CHECK_THROWS_AS(tokenize("{{ x ! y }}"), TemplateError);
}
