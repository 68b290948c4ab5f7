// Whether serve runs a prefix cache: --prefix-cache on|off, or (unset) on
// exactly when the engine took the host's KV block tables, since sharing
// blocks needs the host to own them.
#pragma once

#include <optional>
#include <string>

#include "engine/engine_session.hpp"

namespace algenta::serve {

struct PrefixCacheChoice {
  bool enabled = false;
  std::string reason;   // for the startup log: "on: ..." or "off: ..."
  std::string refusal;  // a startup error: --prefix-cache on with an engine that keeps its cache
};

// `flag`: "on", "off" or "" (unset); `blocks`: the engine's answer to the
// host's block tables; `plugin`: its name, for the messages.
PrefixCacheChoice choose_prefix_cache(const std::string& flag,
                                      const std::optional<host::HostBlockGeometry>& blocks,
                                      const std::string& plugin);

}  // namespace algenta::serve
