#include "engine/plugin_declarations.hpp"

#include <stdexcept>

#include "engine/engine_session.hpp"
#include "loader/selection.hpp"
#include "loader/verified_loader.hpp"

namespace algenta::host {
namespace {

bool is_cuda_engine(const loader::Candidate& c) {
  return c.entry.role == "engine" && c.entry.target.rfind("sm_", 0) == 0;
}

std::vector<loader::Candidate> pick(const Catalog& catalog, const loader::GpuProbeResult& gpus,
                                    const std::string& backend) {
  std::vector<loader::Candidate> picked;
  if (backend == "cuda") {
    const loader::Selection automatic =
        loader::select_plugin(catalog.candidates, gpus, "auto", false);
    if (automatic.chosen) return {*automatic.chosen};
    for (const loader::Candidate& c : catalog.candidates) {
      if (is_cuda_engine(c)) picked.push_back(c);
    }
  } else {
    for (const loader::Candidate& c : catalog.candidates) {
      if (backend == "all" || c.entry.name == backend) picked.push_back(c);
    }
  }
  if (picked.empty()) {
    std::string names;
    for (const loader::Candidate& c : catalog.candidates) {
      names += (names.empty() ? "" : ", ") + c.entry.name;
    }
    throw std::runtime_error("no verified plugin matches --backend " + backend +
                             " (verified plugins: " + (names.empty() ? "none" : names) + ")");
  }
  return picked;
}

std::string text(const char* s) { return s != nullptr ? s : ""; }

}  // namespace

std::vector<PluginDeclaration> load_declarations(const Catalog& catalog,
                                                 const loader::GpuProbeResult& gpus,
                                                 const std::string& backend) {
  std::vector<PluginDeclaration> out;
  for (const loader::Candidate& candidate : pick(catalog, gpus, backend)) {
    const auto plugin = loader::load_verified_plugin(candidate.bundle, candidate.entry, {},
                                                     catalog.library_directories);
    PluginDeclaration declaration{candidate, facts::declared_support(plugin->descriptor()), {}};
    const AlgentaDescriptor& d = plugin->descriptor();
    for (size_t i = 0; i < d.kernel_count; ++i) {
      const AlgentaKernelInfo& k = *ALGENTA_ELEMENT_AT(AlgentaKernelInfo, d.kernels, d.kernel_stride, i);
      declaration.kernels.push_back({text(k.name), text(k.role), text(k.module), text(k.families)});
    }
    for (size_t i = 0; i < d.precision_count; ++i) {
      const auto& policy =
          *ALGENTA_ELEMENT_AT(AlgentaPrecisionPolicy, d.precisions, d.precision_stride, i);
      PrecisionDeclaration precision{text(policy.name), {}};
      for (const AlgentaDtype dtype : {ALGENTA_DTYPE_BF16, ALGENTA_DTYPE_F16, ALGENTA_DTYPE_F32}) {
        if ((policy.weight_dtypes & ALGENTA_DTYPE_BIT(dtype)) != 0) {
          precision.weight_dtypes.push_back(dtype_text(dtype));
        }
      }
      declaration.precisions.push_back(std::move(precision));
    }
    out.push_back(std::move(declaration));
  }
  return out;
}

}  // namespace algenta::host
