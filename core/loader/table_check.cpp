#include "loader/table_check.hpp"

#include "loader/verified_loader.hpp"

namespace algenta::loader {
namespace {

// More entries than this in one descriptor array is a broken table.
constexpr size_t kMaxDescriptorEntries = 1u << 16;

std::string version_text(std::uint32_t major, std::uint32_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

class TableChecker {
 public:
  explicit TableChecker(std::string who) : who_(std::move(who)) {}

  [[noreturn]] void fail(const std::string& what) const { throw LoadError(who_ + ": " + what); }

  void size_at_least(size_t given, size_t needed, const char* type) const {
    if (given < needed) {
      fail(std::string(type) + ".struct_size is " + std::to_string(given) + " bytes; ABI 1.0 defines " +
           std::to_string(needed));
    }
  }

  void present(const void* pointer, const std::string& field) const {
    if (pointer == nullptr) fail(field + " is NULL");
  }

  // An array of sized structs: pointer set when count > 0, a stride no
  // smaller than the 1.0 element, and every element no larger than the stride.
  template <typename T, typename Each>
  void array(const T* base, size_t count, size_t stride, size_t size_1_0, const std::string& field,
             Each each) const {
    if (count == 0) return;
    if (count > kMaxDescriptorEntries) {
      fail(field + " has " + std::to_string(count) + " entries; at most " +
           std::to_string(kMaxDescriptorEntries) + " are allowed");
    }
    present(base, field);
    if (stride < size_1_0) {
      fail(field + " stride is " + std::to_string(stride) + " bytes; an element of ABI 1.0 takes " +
           std::to_string(size_1_0));
    }
    for (size_t i = 0; i < count; ++i) {
      const T& element = *ALGENTA_ELEMENT_AT(T, base, stride, i);
      const std::string name = field + "[" + std::to_string(i) + "]";
      if (element.struct_size < size_1_0 || element.struct_size > stride) {
        fail(name + ".struct_size is " + std::to_string(element.struct_size) +
             "; it must lie between the ABI 1.0 size " + std::to_string(size_1_0) +
             " and the stride " + std::to_string(stride));
      }
      each(element, name);
    }
  }

  void strings(const char* const* list, size_t count, const std::string& field) const {
    if (count == 0) return;
    if (count > kMaxDescriptorEntries) fail(field + " has " + std::to_string(count) + " entries");
    present(list, field);
    for (size_t i = 0; i < count; ++i) present(list[i], field + "[" + std::to_string(i) + "]");
  }

 private:
  std::string who_;
};

void check_versions(const AlgentaPluginV1& table, const TableChecker& check) {
  if (table.abi_major != ALGENTA_ABI_MAJOR) {
    check.fail("table reports ABI major " + std::to_string(table.abi_major) +
               "; this host speaks ABI major " + std::to_string(ALGENTA_ABI_MAJOR));
  }
  if (table.abi_minor > ALGENTA_ABI_MINOR) {
    check.fail("needs ABI " + version_text(table.abi_major, table.abi_minor) +
               "; this host provides ABI " + version_text(ALGENTA_ABI_MAJOR, ALGENTA_ABI_MINOR) +
               " (upgrade algenta-host)");
  }
}

void check_calls(const AlgentaPluginV1& table, const TableChecker& check) {
  check.present(reinterpret_cast<const void*>(table.error_destroy), "error_destroy");
  check.present(reinterpret_cast<const void*>(table.error_code), "error_code");
  check.present(reinterpret_cast<const void*>(table.error_message), "error_message");
  check.present(reinterpret_cast<const void*>(table.engine_open), "engine_open");
  check.present(reinterpret_cast<const void*>(table.engine_step), "engine_step");
  check.present(reinterpret_cast<const void*>(table.sequences_free), "sequences_free");
  check.present(reinterpret_cast<const void*>(table.memory_report), "memory_report");
  check.present(reinterpret_cast<const void*>(table.engine_close), "engine_close");
}

void check_descriptor(const AlgentaDescriptor& d, const TableChecker& check) {
  check.size_at_least(d.struct_size, ALGENTA_Descriptor_STRUCT_SIZE_1_0, "AlgentaDescriptor");
  check.present(d.name, "descriptor name");
  check.present(d.target, "descriptor target");
  check.present(d.version, "descriptor version");
  check.strings(d.families, d.family_count, "families");
  check.strings(d.host_libraries, d.host_library_count, "host_libraries");
  check.array(d.fact_ranges, d.fact_range_count, d.fact_range_stride,
              ALGENTA_FactRange_STRUCT_SIZE_1_0, "fact_ranges",
              [&](const AlgentaFactRange& row, const std::string& name) {
                check.present(row.family, name + ".family");
                check.present(row.fact, name + ".fact");
                if (row.kind == ALGENTA_FACT_ONE_OF) check.present(row.allowed, name + ".allowed");
              });
  check.array(d.kernels, d.kernel_count, d.kernel_stride, ALGENTA_KernelInfo_STRUCT_SIZE_1_0,
              "kernels", [&](const AlgentaKernelInfo& kernel, const std::string& name) {
                check.present(kernel.name, name + ".name");
                check.present(kernel.role, name + ".role");
                check.present(kernel.module, name + ".module");
                check.present(kernel.families, name + ".families");
              });
  if (d.precision_count == 0) check.fail("declares no precision policy (precision_count is 0)");
  check.array(d.precisions, d.precision_count, d.precision_stride,
              ALGENTA_PrecisionPolicy_STRUCT_SIZE_1_0, "precisions",
              [&](const AlgentaPrecisionPolicy& policy, const std::string& name) {
                check.present(policy.name, name + ".name");
              });
}

}  // namespace

void check_plugin_table(const AlgentaPluginV1* table, const std::string& who) {
  const TableChecker check(who);
  if (table == nullptr) {
    check.fail("algenta_plugin_entry(" + std::to_string(ALGENTA_ABI_MAJOR) +
               ") returned no table: the plugin does not speak ABI major " +
               std::to_string(ALGENTA_ABI_MAJOR));
  }
  // The version fields come before anything a later minor could append.
  check_versions(*table, check);
  check.size_at_least(table->struct_size, ALGENTA_PluginV1_STRUCT_SIZE_1_0, "AlgentaPluginV1");
  check_calls(*table, check);
  check.present(table->descriptor, "descriptor");
  check_descriptor(*table->descriptor, check);
}

}  // namespace algenta::loader
