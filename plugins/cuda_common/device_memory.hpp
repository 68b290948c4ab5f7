// Device memory the engine owns: CUDA status checks that become ABI errors,
// and one allocation carved into aligned pieces so a model's weights (or its
// workspace) are a single cudaMalloc whose size is known before it is made.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace algenta::cuda {

// Throws plugin::StatusError: OUT_OF_MEMORY for allocation failures, DEVICE
// for anything else, naming `what` and CUDA's own words.
void check_cuda(cudaError_t status, const std::string& what);

// Free and total bytes of the current device.
struct DeviceMemoryInfo {
  std::uint64_t free_bytes = 0;
  std::uint64_t total_bytes = 0;
};
DeviceMemoryInfo device_memory_info();

std::string byte_text(std::uint64_t bytes);  // "1234567 bytes (1.18 MiB)"

// Sizes a set of pieces first (plan), then allocates them at once.
class DeviceArena {
 public:
  static constexpr std::size_t kAlignment = 256;

  DeviceArena() = default;
  ~DeviceArena();
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;

  // Reserves `bytes` and returns its offset; valid only before allocate().
  std::size_t plan(std::size_t bytes);
  // One cudaMalloc of everything planned; OUT_OF_MEMORY names `what`,
  // the bytes needed and the bytes free.
  void allocate(const std::string& what);

  template <typename T>
  T* at(std::size_t offset) const {
    return reinterpret_cast<T*>(static_cast<std::byte*>(base_) + offset);
  }
  std::size_t bytes() const noexcept { return size_; }

 private:
  void* base_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace algenta::cuda
