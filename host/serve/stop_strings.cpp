#include "serve/stop_strings.hpp"

#include <algorithm>
#include <utility>

namespace algenta::serve {

StopStrings::Released StopStrings::push(std::string_view text) {
  pending_.append(text);
  // The earliest stop string wins, as the client would read the text.
  std::size_t first = std::string::npos;
  for (const std::string& stop : stops_) {
    if (stop.empty()) continue;
    first = std::min(first, pending_.find(stop));
  }
  if (first != std::string::npos) {
    Released out{pending_.substr(0, first), true};
    pending_.clear();
    return out;
  }
  const std::size_t keep = held_suffix();
  Released out{pending_.substr(0, pending_.size() - keep), false};
  pending_.erase(0, pending_.size() - keep);
  return out;
}

std::string StopStrings::flush() { return std::exchange(pending_, std::string()); }

std::size_t StopStrings::held_suffix() const {
  std::size_t longest = 0;
  for (const std::string& stop : stops_) {
    const std::size_t most = std::min(stop.size() - (stop.empty() ? 0 : 1), pending_.size());
    for (std::size_t n = most; n > longest; --n) {
      if (std::string_view(pending_).substr(pending_.size() - n) == std::string_view(stop).substr(0, n)) {
        longest = n;
        break;
      }
    }
  }
  return longest;
}

}  // namespace algenta::serve
