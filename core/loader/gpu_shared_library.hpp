// A dlopen() handle that closes itself, used by the GPU probe so the driver
// libraries stay loaded only while they are being asked.
#pragma once

#include <dlfcn.h>

#include <string>
#include <utility>

namespace algenta::loader {

class GpuSharedLibrary {
 public:
  // RTLD_LOCAL: the driver's symbols must not leak into later plugin lookups.
  explicit GpuSharedLibrary(const char* soname)
      : handle_(::dlopen(soname, RTLD_NOW | RTLD_LOCAL)) {
    if (handle_ == nullptr) {
      const char* why = ::dlerror();
      error_ = why != nullptr ? why : "dlopen failed";
    }
  }
  ~GpuSharedLibrary() {
    if (handle_ != nullptr) ::dlclose(handle_);
  }
  GpuSharedLibrary(const GpuSharedLibrary&) = delete;
  GpuSharedLibrary& operator=(const GpuSharedLibrary&) = delete;

  bool loaded() const { return handle_ != nullptr; }
  const std::string& error() const { return error_; }

  // nullptr when the symbol is absent; Fn is the function-pointer type.
  template <typename Fn>
  Fn symbol(const char* name) const {
    if (handle_ == nullptr) return nullptr;
    return reinterpret_cast<Fn>(::dlsym(handle_, name));
  }

 private:
  void* handle_ = nullptr;
  std::string error_;
};

}  // namespace algenta::loader
