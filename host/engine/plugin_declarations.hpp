// What plugins declare about themselves (families, fact ranges, kernels),
// asked of the plugins through the ABI. Each is loaded through the verified
// path, its declarations copied out, and unloaded again.
#pragma once

#include <string>
#include <vector>

#include "facts/conformance.hpp"
#include "loader/gpu_probe.hpp"
#include "engine/plugin_catalog.hpp"

namespace algenta::host {

struct KernelDeclaration {
  std::string name, role, module, families;
};

// A precision policy and the weight types it holds ("bf16", "f16", "f32").
struct PrecisionDeclaration {
  std::string name;
  std::vector<std::string> weight_dtypes;
};

struct PluginDeclaration {
  loader::Candidate candidate;
  facts::DeclaredSupport support;
  std::vector<KernelDeclaration> kernels;
  std::vector<PrecisionDeclaration> precisions;
};

// backend: "cuda" (the GPU's engine when a GPU is present, else every CUDA
// engine), "all" (every plugin), or a plugin name. Throws std::runtime_error
// naming the backend or the plugin that could not be loaded.
std::vector<PluginDeclaration> load_declarations(const Catalog& catalog,
                                                 const loader::GpuProbeResult& gpus,
                                                 const std::string& backend);

}  // namespace algenta::host
