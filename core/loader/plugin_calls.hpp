// The host side of the ABI's error and close calls, with their ownership
// rules kept in one place: an error is read once and handed back to the
// plugin to free; a closed engine is gone whatever close reports.
#pragma once

#include <optional>
#include <string>

#include "algenta/plugin_abi.h"

namespace algenta::loader {

struct PluginFailure {
  AlgentaStatusCode code;
  std::string message;
};

// Copies the error's code and message, then destroys the error.
PluginFailure take_error(const AlgentaPluginV1& table, AlgentaError* error);

// Closes `engine` (NULL is allowed); the failure close reported, if any.
std::optional<PluginFailure> close_engine(const AlgentaPluginV1& table, AlgentaEngine* engine);

}  // namespace algenta::loader
