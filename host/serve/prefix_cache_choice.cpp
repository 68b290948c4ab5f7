#include "serve/prefix_cache_choice.hpp"

namespace algenta::serve {

PrefixCacheChoice choose_prefix_cache(const std::string& flag,
                                      const std::optional<host::HostBlockGeometry>& blocks,
                                      const std::string& plugin) {
  if (flag == "off") return {false, "off (--prefix-cache off)", {}};
  if (blocks) {
    return {true,
            "on: prompts that begin alike share KV blocks of " +
                std::to_string(blocks->tokens_per_block) + " tokens",
            {}};
  }
  if (flag == "on") {
    return {false, {},
            "--prefix-cache on needs an engine that takes the host's KV block tables (ABI 1.1), "
            "and " + plugin + " keeps its own KV cache: leave --prefix-cache unset or set it "
            "to off"};
  }
  return {false, "off: " + plugin + " keeps its own KV cache", {}};
}

}  // namespace algenta::serve
