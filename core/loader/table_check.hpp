// Checks a plugin's function table and descriptor against the ABI before
// the host reads anything else from them: versions, struct sizes against
// the size each version defines (never this build's sizeof), array strides,
// and the pointers the header promises are set. Throws LoadError naming the
// struct, the field and the numbers.
#pragma once

#include <string>

#include "algenta/plugin_abi.h"

namespace algenta::loader {

// `who` names the plugin in messages, e.g. "cuda_sm90a (libalgenta_cuda_sm90a.so)".
void check_plugin_table(const AlgentaPluginV1* table, const std::string& who);

}  // namespace algenta::loader
