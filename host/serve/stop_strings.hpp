// Stop strings over streamed text. Text that could be the start of a stop
// string is held back until the next text decides it, so a stop string split
// across tokens is caught and never reaches the client.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace algenta::serve {

class StopStrings {
 public:
  explicit StopStrings(std::vector<std::string> stops) : stops_(std::move(stops)) {}

  struct Released {
    std::string text;      // safe to send now
    bool stopped = false;  // a stop string was found; `text` ends before it
  };
  Released push(std::string_view text);
  // What is held back, once no more text will come (no stop string was found).
  std::string flush();

 private:
  // Bytes at the end of pending_ that are a proper prefix of some stop string.
  std::size_t held_suffix() const;

  std::vector<std::string> stops_;
  std::string pending_;
};

}  // namespace algenta::serve
