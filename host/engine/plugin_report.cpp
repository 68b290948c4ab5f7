#include "engine/plugin_report.hpp"

#include <chrono>
#include <cstdio>

namespace algenta::host {

const char* status_name(AlgentaStatusCode code) {
  switch (code) {
    case ALGENTA_STATUS_OK: return "ok";
    case ALGENTA_STATUS_INVALID_ARGUMENT: return "invalid argument";
    case ALGENTA_STATUS_UNSUPPORTED: return "unsupported";
    case ALGENTA_STATUS_OUT_OF_MEMORY: return "out of memory";
    case ALGENTA_STATUS_UNIMPLEMENTED: return "unimplemented";
    case ALGENTA_STATUS_DEVICE: return "device error";
    case ALGENTA_STATUS_IO: return "I/O error";
    case ALGENTA_STATUS_INTERNAL: return "internal error";
  }
  return "unknown status";
}

std::string describe_descriptor(const AlgentaPluginV1& table) {
  const AlgentaDescriptor& d = *table.descriptor;
  std::string families;
  for (size_t i = 0; i < d.family_count; ++i) {
    families += (i == 0 ? "" : ",") + std::string(d.families[i]);
  }
  std::string precisions;
  for (size_t i = 0; i < d.precision_count; ++i) {
    const auto* policy =
        ALGENTA_ELEMENT_AT(AlgentaPrecisionPolicy, d.precisions, d.precision_stride, i);
    precisions += (i == 0 ? "" : ",") + std::string(policy->name);
  }
  return std::string(d.name) + " role=" + (d.role == ALGENTA_ROLE_ORACLE ? "oracle" : "engine") +
         " target=" + d.target + " abi=" + std::to_string(table.abi_major) + "." +
         std::to_string(table.abi_minor) + " version=" + (d.version != nullptr ? d.version : "?") +
         " families=" + families + " precisions=" + precisions +
         " kernels=" + std::to_string(d.kernel_count) +
         " fact_ranges=" + std::to_string(d.fact_range_count) +
         " host_libraries=" + std::to_string(d.host_library_count);
}

std::string describe_gpu(const loader::GpuDevice& gpu) {
  char memory[32];
  std::snprintf(memory, sizeof memory, "%.1f GiB",
                static_cast<double>(gpu.total_memory_bytes) / (1024.0 * 1024.0 * 1024.0));
  return gpu.name + ", compute capability " + std::to_string(gpu.major) + "." +
         std::to_string(gpu.minor) + ", " + memory;
}

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace algenta::host
