#include <catch2/catch.hpp>

#include "serve/stop_strings.hpp"

using algenta::serve::StopStrings;

TEST_CASE("Text that may start a stop string is held back until decided", "[serve][stop]") {
  StopStrings stops({"END"});
  auto r = stops.push("hello E");
  CHECK(r.text == "hello ");
  CHECK_FALSE(r.stopped);
  r = stops.push("N");
  CHECK(r.text.empty());
  r = stops.push("X more");
  CHECK(r.text == "ENX more");
  CHECK_FALSE(r.stopped);
  CHECK(stops.flush().empty());
}

TEST_CASE("A stop string split across pushes is caught and never given out", "[serve][stop]") {
  StopStrings stops({"END", "stop"});
  CHECK(stops.push("abc E").text == "abc ");
  const auto r = stops.push("ND tail");
  CHECK(r.stopped);
  CHECK(r.text.empty());
}

TEST_CASE("The earliest stop string wins and the text before it is given out", "[serve][stop]") {
  StopStrings stops({"bb", "a"});
  const auto r = stops.push("xxbbya");
  CHECK(r.stopped);
  CHECK(r.text == "xx");
}

TEST_CASE("Without stop strings nothing is held", "[serve][stop]") {
  StopStrings stops({});
  CHECK(stops.push("abc").text == "abc");
  CHECK(stops.flush().empty());
}

TEST_CASE("What is held back comes out at the end when no stop string followed", "[serve][stop]") {
  StopStrings stops({"<|end|>"});
  CHECK(stops.push("x<|en").text == "x");
  CHECK(stops.flush() == "<|en");
}
